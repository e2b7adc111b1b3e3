"""A pipeline's report: report.html and report.md with its two figures, through present/report's pages."""

from __future__ import annotations

from pathlib import Path

from ov_tuner.present.report import write_pages
from ov_tuner.workloads.pipeline.answer_record import PipelineAnswer
from ov_tuner.workloads.pipeline.present.document import pipeline_document
from ov_tuner.workloads.pipeline.present.figures import write_pipeline_figures


def build_pipeline_report(answer: PipelineAnswer, out: Path) -> list[Path]:
    """Write report.html, report.md and the pipeline's two figures into `out`: the files written, the pages first."""
    out.mkdir(parents=True, exist_ok=True)
    figures = write_pipeline_figures(answer, out)
    title = f"ov-tuner pipeline report: {' -> '.join(s.name for s in answer.pipeline.stages)}"
    files = write_pages(title, pipeline_document(answer, figures, deploy=True), out, [figures.cameras, figures.stages])
    return [files.html, files.markdown, *files.images]
