"""Analysis and heatmap data on points with known answers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ov_tuner.analysis import (
    NOISY_FPS_CV,
    DiagnosticKind,
    Metric,
    best_per_device_precision,
    diagnostics,
    heatmap_grid,
)
from ov_tuner.plots import heatmap_figure
from ov_tuner.schema import (
    CompileInfo,
    Environment,
    Measurement,
    PointConfig,
    PointResult,
    Precision,
    Status,
)


def point(streams: int, nireq: int, fps: float, precision: Precision = Precision.FP32, ran: str | None = None,
          noisy: bool = False, num_streams: int | None = None) -> PointResult:
    config = PointConfig("CPU", precision, 1, streams, nireq)
    hint = precision.hint
    compile_info = CompileInfo(config.compile_key, {"NUM_STREAMS": str(streams), "INFERENCE_PRECISION_HINT": hint},
                               num_streams or streams, ran or hint, ran or hint, streams, ("CPU",), 10.0, 1.0)
    seconds = 2.0
    frames = int(fps * seconds)
    slices = (fps * 0.7, fps * 1.3, fps) if noisy else (fps, fps, fps)
    latencies = np.full(frames, 1000.0 * nireq / fps)
    return PointResult(config, Status.OK, compile_info, Measurement(frames, frames, seconds, latencies, slices))


def failed(streams: int, nireq: int) -> PointResult:
    return PointResult(PointConfig("CPU", Precision.FP32, 1, streams, nireq), Status.FAILED, error="compile: boom")


def test_best_picks_most_fps_and_breaks_ties_by_fewer_streams_then_requests() -> None:
    points = [point(1, 1, 100), point(2, 4, 300), point(2, 2, 300), point(1, 4, 300), failed(4, 8),
              point(1, 1, 50, Precision.FP16)]
    best = {b.precision: b for b in best_per_device_precision(points)}
    assert (best[Precision.FP32].point.config.streams, best[Precision.FP32].point.config.nireq) == (1, 4)
    assert best[Precision.FP32].fps == pytest.approx(300)
    assert best[Precision.FP16].fps == pytest.approx(50)


def test_best_of_only_failed_points_is_nothing() -> None:
    assert best_per_device_precision([failed(1, 1)]) == []


def test_heatmap_grid_places_values_and_marks_failures() -> None:
    points = [point(1, 1, 100), point(1, 2, 150), point(2, 1, 60), failed(2, 2)]
    grid = heatmap_grid(points, "CPU", Precision.FP32, 1, Metric.FPS)
    assert grid.streams == (1, 2) and grid.nireqs == (1, 2)
    assert grid.values[0].tolist() == pytest.approx([100, 150])
    assert grid.values[1, 0] == pytest.approx(60)
    assert np.isnan(grid.values[1, 1]) and grid.failed[1, 1] and not grid.failed[0, 0]
    latency = heatmap_grid(points, "CPU", Precision.FP32, 1, Metric.LATENCY_MEDIAN)
    assert latency.values[0, 1] == pytest.approx(1000 * 2 / 150)


def test_diagnostics_name_each_problem_once_per_compiled_model() -> None:
    points = [
        point(2, 1, 100),  # fewer requests than streams
        point(1, 1, 100, Precision.FP16, ran="bf16"),  # f16 asked, bf16 ran
        point(4, 4, 100, num_streams=2),  # device lowered the streams
        point(1, 2, 100, noisy=True),
        failed(2, 2),
    ]
    kinds = [d.kind for d in diagnostics(points)]
    assert sorted(kinds) == sorted([DiagnosticKind.IDLE_STREAMS, DiagnosticKind.PRECISION, DiagnosticKind.STREAMS,
                                    DiagnosticKind.NOISY, DiagnosticKind.FAILED])
    precision = next(d for d in diagnostics(points) if d.kind is DiagnosticKind.PRECISION)
    assert "bf16" in precision.detail and precision.hint
    assert point(1, 2, 100, noisy=True).measurement.fps_cv > NOISY_FPS_CV  # type: ignore[union-attr]


def test_heatmap_figure_has_three_panels_with_the_best_outlined(tmp_path: Path) -> None:
    env = Environment("2026.4.1", "0.1.0", "host", "cpu", 2, "3.11", "/m.xml", "0" * 64, "tiny")
    points = [point(1, 1, 100), point(1, 2, 150), point(2, 1, 60), failed(2, 2)]
    fig = heatmap_figure(points, "CPU", Precision.FP32, 1, env, None)
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["Throughput (FPS)", "Median latency (ms)", "p90 latency (ms)"]
    outline = panels[0].patches[0]
    assert outline.get_xy() == (0.5, -0.5)  # column nireq=2, row streams=1: the 150 FPS cell
    texts = [t.get_text() for t in panels[0].texts]
    assert "150" in texts and "failed" in texts
    fig.savefig(tmp_path / "h.png")
    assert (tmp_path / "h.png").stat().st_size > 10_000
