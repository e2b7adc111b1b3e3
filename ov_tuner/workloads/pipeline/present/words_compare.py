"""The words of pipelines' results files side by side: what differs between where they were measured, and what each
deploys and the cameras it serves."""

from __future__ import annotations

from ov_tuner.workloads.pipeline.compare import PipelineComparison
from ov_tuner.workloads.pipeline.present.words import headline_cameras_text, split_text


def pipeline_comparison_lines(comparison: PipelineComparison) -> list[str]:
    """The comparison as the terminal prints it."""
    lines = [f"file {i + 1}: {path}" for i, path in enumerate(comparison.paths)]
    lines += [f"differs: {field}: {' | '.join(values)}" for field, values in comparison.differences] or \
        ["differs: nothing recorded (the same host, model and OpenVINO)"]
    target = comparison.answers[0].pipeline.target
    for i, a in enumerate(comparison.answers):
        lines.append(f"file {i + 1} deploys {split_text(a.pipeline, a.split, a.ran)}, serving "
                     f"{headline_cameras_text(a)} cameras at {target.fps:g} FPS each, p{target.percentile:g} within "
                     f"{target.max_latency_ms:g} ms")
    return lines
