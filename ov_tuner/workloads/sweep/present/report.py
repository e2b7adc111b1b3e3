"""A sweep's report: report.html and report.md (present/report.write_pages) with the document `show` prints
(documents.py) and the figures, or one page comparing several files."""

from __future__ import annotations

from pathlib import Path

from ov_tuner.analyse.answer import Answer
from ov_tuner.analyse.compare import Comparison
from ov_tuner.analyse.figures import PlotData
from ov_tuner.analyse.findings import Findings
from ov_tuner.errors import OvTunerError
from ov_tuner.present.drawing import save_figure
from ov_tuner.present.report import ReportFiles, write_pages
from ov_tuner.store.results import StoredResults
from ov_tuner.workloads.sweep.present.documents import comparison_document, report_document
from ov_tuner.workloads.sweep.present.figures import comparison_figure, write_figures


def build_report(results: StoredResults, answer: Answer | None, findings: Findings, plots: PlotData,
                 out_dir: Path) -> ReportFiles:
    """Write report.html, report.md and the figures they show (`plots`, analyse.figures.plot_data's) into `out_dir`:
    the answer, then what the analysis found (`findings`)."""
    if answer is None:
        raise OvTunerError(f"{results.path} has no measured point to report on; run `ov-tuner sweep` first")
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = write_figures(plots, out_dir)
    title = f"ov-tuner report: {results.environment.model_name}"
    return write_pages(title, report_document(results, answer, findings, figures), out_dir, figures.all())


def build_comparison_report(comparison: Comparison, answers: list[Answer | None], out_dir: Path) -> ReportFiles:
    """One page for several results files (two hosts, a fleet, two OpenVINO versions), with each one's answer."""
    out_dir.mkdir(parents=True, exist_ok=True)
    figure = save_figure(comparison_figure(comparison), out_dir, "compare") if comparison.matched else None
    title = f"ov-tuner comparison: {comparison.files[0].environment.model_name}, {len(comparison.files)} files"
    return write_pages(title, comparison_document(comparison, answers, figure), out_dir, [figure] if figure else [])
