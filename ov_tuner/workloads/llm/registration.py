"""An LLM's results file (`ov-tuner llm`): read with workloads/llm/results_file.load_llm, answered by
workloads/llm/answer, compared by workloads/llm/compare. It has no points to export."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ov_tuner.errors import BadInputError
from ov_tuner.registry.parts import API_VERSION, Asked, Registration
from ov_tuner.workloads.llm.schema import WRITER

if TYPE_CHECKING:
    import typer
    from rich.console import Console

    from ov_tuner.present.deploy import Forms
    from ov_tuner.present.report import ReportFiles
    from ov_tuner.workloads.llm.answer_record import LlmAnswer


def _answer(results: Path, asked: Asked | None = None) -> LlmAnswer:
    from ov_tuner.workloads.llm.answer import llm_answer
    from ov_tuner.workloads.llm.results_file import load_llm

    stored = load_llm(results)
    assert stored is not None, f"{results} was registered as an LLM's results file"
    return llm_answer(stored)


def _show(console: Console, results: Path, verbose: bool) -> None:
    from ov_tuner.workloads.llm.present.document import print_llm

    print_llm(console, _answer(results), every_trial=True)


def _words(console: Console, answer: LlmAnswer) -> None:
    from ov_tuner.workloads.llm.present.document import print_llm

    print_llm(console, answer, every_trial=False)


def _report(results: Sequence[Path], out_dir: Path, models_differ: bool) -> ReportFiles:
    from ov_tuner.workloads.llm.present.report import build_llm_report  # imports matplotlib

    if len(results) > 1:
        raise BadInputError(f"{results[0]} is an LLM's results file, reported one at a time: give one file (compare "
                            "sets several side by side)")
    return build_llm_report(_answer(results[0]), out_dir)


def _figures(results: Path, out_dir: Path, fmt: str, paired_only: bool) -> list[Path]:
    from ov_tuner.workloads.llm.present.figures import write_llm_figures  # imports matplotlib

    return write_llm_figures(_answer(results), out_dir, fmt).all()


def _compare(console: Console, results: Sequence[Path], models_differ: bool, out_dir: Path | None, fmt: str) -> None:
    from ov_tuner.workloads.llm.compare import compare_llm
    from ov_tuner.workloads.llm.present.words_compare import comparison_lines

    comparison = compare_llm([_answer(r) for r in results], models_differ)
    console.print("\n".join(comparison_lines(comparison)), highlight=False, soft_wrap=True, markup=False)


def _forms() -> Forms:
    from ov_tuner.workloads.llm.present.deploy_forms import LLM_FORMS

    return LLM_FORMS


def _commands(app: typer.Typer) -> None:
    """`ov-tuner llm`, added to the one app, `app`, as its module is imported."""
    import ov_tuner.workloads.llm.command  # noqa: F401


LLM = Registration(writer=WRITER, api=API_VERSION, answer=_answer, show=_show, words=_words, report=_report,
                   figures=_figures, compare=_compare, forms=_forms, commands=_commands, fleet=True)
