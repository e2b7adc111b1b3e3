"""A pipeline's results file (`ov-tuner pipeline`): read with workloads/pipeline/results_file.load_pipeline, answered
by workloads/pipeline/answer, compared by workloads/pipeline/compare. It has no points to export."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ov_tuner.errors import BadInputError, ResultsFileError
from ov_tuner.registry.parts import API_VERSION, Asked, Registration
from ov_tuner.workloads.pipeline.schema import WRITER

if TYPE_CHECKING:
    import typer
    from rich.console import Console

    from ov_tuner.present.deploy import Forms
    from ov_tuner.present.report import ReportFiles
    from ov_tuner.workloads.pipeline.answer_record import PipelineAnswer


def _answer(results: Path, asked: Asked | None = None) -> PipelineAnswer:
    from ov_tuner.workloads.pipeline.answer import pipeline_answer
    from ov_tuner.workloads.pipeline.results_file import load_pipeline

    stored = load_pipeline(results)
    answer = None if stored is None else pipeline_answer(stored)
    if answer is None:
        raise ResultsFileError(f"{results} holds no pipeline trial yet: run `ov-tuner pipeline` into it first")
    return answer


def _show(console: Console, results: Path, verbose: bool) -> None:
    from ov_tuner.workloads.pipeline.present.document import print_pipeline

    print_pipeline(console, _answer(results), full=True)


def _words(console: Console, answer: PipelineAnswer) -> None:
    from ov_tuner.present.terminal import print_sections
    from ov_tuner.workloads.pipeline.present.document import pipeline_recommend_document

    print_sections(console, pipeline_recommend_document(answer), titles=False)


def _report(results: Sequence[Path], out_dir: Path, models_differ: bool) -> ReportFiles:
    from ov_tuner.present.report import ReportFiles
    from ov_tuner.workloads.pipeline.present.report import build_pipeline_report  # imports matplotlib

    if len(results) > 1:
        raise BadInputError(f"{results[0]} is a pipeline's results file, reported one at a time: give one file")
    written = build_pipeline_report(_answer(results[0]), out_dir)
    return ReportFiles(written[0], written[1], written[2:])


def _figures(results: Path, out_dir: Path, fmt: str, paired_only: bool) -> list[Path]:
    from ov_tuner.workloads.pipeline.present.figures import write_pipeline_figures  # imports matplotlib

    figures = write_pipeline_figures(_answer(results), out_dir, fmt)
    return [figures.cameras, figures.stages]


def _compare(console: Console, results: Sequence[Path], models_differ: bool, out_dir: Path | None, fmt: str) -> None:
    from ov_tuner.workloads.pipeline.compare import compare_pipelines
    from ov_tuner.workloads.pipeline.present.words_compare import pipeline_comparison_lines
    from ov_tuner.workloads.pipeline.results_file import load_pipeline

    stored = [load_pipeline(r) for r in results]
    empty = next((r for r, s in zip(results, stored, strict=True) if s is None), None)
    if empty is not None:
        raise ResultsFileError(f"{empty} holds no pipeline trial yet: run `ov-tuner pipeline` into it first")
    comparison = compare_pipelines([s for s in stored if s is not None])
    console.print("\n".join(pipeline_comparison_lines(comparison)), highlight=False, soft_wrap=True, markup=False)


def _forms() -> Forms:
    from ov_tuner.workloads.pipeline.present.deploy_forms import PIPELINE_FORMS

    return PIPELINE_FORMS


def _commands(app: typer.Typer) -> None:
    """`ov-tuner pipeline`, added to the one app, `app`, as its module is imported."""
    import ov_tuner.workloads.pipeline.command  # noqa: F401


PIPELINE = Registration(writer=WRITER, api=API_VERSION, answer=_answer, show=_show, words=_words, report=_report,
                        figures=_figures, compare=_compare, forms=_forms, commands=_commands, fleet=True)
