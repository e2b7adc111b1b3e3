"""The sweep's results file (`ov-tuner sweep`, and the jobs that run its answer: capacity, soak, cold start,
profile): read with store/results.load_results, answered by analyse/answer."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ov_tuner.deployable import SWEEP_WRITER
from ov_tuner.registry.parts import API_VERSION, ASKABLE, Asked, Registration

if TYPE_CHECKING:
    import typer
    from rich.console import Console

    from ov_tuner.analyse.answer import Answer
    from ov_tuner.present.deploy import Forms
    from ov_tuner.present.report import ReportFiles


def _answer(results: Path, asked: Asked) -> Answer:
    from ov_tuner.analyse.accuracy import DEFAULT_LIMIT
    from ov_tuner.analyse.answer import answer_of
    from ov_tuner.store.results import load_results

    return answer_of(load_results(results), asked.limit or DEFAULT_LIMIT, asked.max_latency, asked.percentile,
                     asked.device and asked.device.upper(), asked.precision)


def _show(console: Console, results: Path, verbose: bool) -> None:
    from ov_tuner.analyse.answer import answer_if_any
    from ov_tuner.analyse.findings import findings_of
    from ov_tuner.present.terminal import print_sections
    from ov_tuner.store.results import load_results
    from ov_tuner.workloads.sweep.present.documents import show_document

    stored = load_results(results)
    answer = answer_if_any(stored, read_inputs=False)  # show prints no deploy form: the model stays unread
    print_sections(console, show_document(stored, answer, findings_of(stored), verbose))


def _words(console: Console, answer: Answer) -> None:
    from ov_tuner.present.terminal import print_sections
    from ov_tuner.workloads.sweep.present.documents import recommend_document

    print_sections(console, recommend_document(answer), titles=False)


def _report(results: Sequence[Path], out_dir: Path, models_differ: bool) -> ReportFiles:
    """One file's report, or one page comparing several (hosts, a fleet)."""
    from ov_tuner.analyse.answer import answer_if_any
    from ov_tuner.analyse.compare import compare
    from ov_tuner.analyse.figures import plot_data
    from ov_tuner.analyse.findings import findings_of
    from ov_tuner.store.results import load_results
    from ov_tuner.workloads.sweep.present.report import build_comparison_report, build_report

    loaded = [load_results(r) for r in results]
    answers = [answer_if_any(r) for r in loaded]
    if len(loaded) == 1:
        return build_report(loaded[0], answers[0], findings_of(loaded[0]), plot_data(loaded[0], answers[0]), out_dir)
    return build_comparison_report(compare(loaded, models_differ), answers, out_dir)


def _figures(results: Path, out_dir: Path, fmt: str, paired_only: bool) -> list[Path]:
    from ov_tuner.analyse.answer import answer_if_any
    from ov_tuner.analyse.figures import plot_data
    from ov_tuner.store.results import load_results
    from ov_tuner.workloads.sweep.present.figures import (
        write_figures,  # matplotlib takes ~0.4 s to import: only plots and reports pay
    )

    stored = load_results(results)
    return write_figures(plot_data(stored, answer_if_any(stored)), out_dir, paired_only, fmt).all()


def _compare(console: Console, results: Sequence[Path], models_differ: bool, out_dir: Path | None, fmt: str) -> None:
    from ov_tuner.analyse.answer import answer_if_any
    from ov_tuner.analyse.compare import compare
    from ov_tuner.present.terminal import print_sections
    from ov_tuner.store.results import load_results
    from ov_tuner.workloads.sweep.present.documents import comparison_document

    loaded = [load_results(r) for r in results]
    comparison = compare(loaded, models_differ)
    figure = None
    if out_dir is not None and comparison.matched:
        from ov_tuner.present.drawing import save_figure
        from ov_tuner.workloads.sweep.present.figures import comparison_figure

        figure = save_figure(comparison_figure(comparison), out_dir, "compare", fmt)
    print_sections(console, comparison_document(comparison, [answer_if_any(r) for r in loaded], figure))


def _export(results: Path, as_json: bool, with_latencies: bool) -> tuple[str, int]:
    """Every point as CSV (one row a point) or JSON, and how many points that is."""
    from ov_tuner.store.export import to_csv, to_json
    from ov_tuner.store.results import load_results

    stored = load_results(results)
    return (to_json if as_json else to_csv)(stored, with_latencies), len(stored.points)


def _forms() -> Forms:
    from ov_tuner.workloads.sweep.present.deploy_forms import MODEL_FORMS

    return MODEL_FORMS


def _commands(app: typer.Typer) -> None:
    """`ov-tuner sweep` and its parts' commands (quantize, capacity, soak, neighbours, coldstart, profile, fleet
    sweep), added to the one app, `app`, as their modules are imported."""
    import ov_tuner.workloads.sweep.commands  # noqa: F401


SWEEP = Registration(writer=SWEEP_WRITER, api=API_VERSION, answer=_answer, show=_show, words=_words, report=_report,
                     figures=_figures, compare=_compare, export=_export, forms=_forms, commands=_commands,
                     asks=ASKABLE, reads_unclaimed=True)
