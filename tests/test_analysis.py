"""Analysis and heatmap data on points with known answers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from factories import baseline, failed_point, make_point, round_of
from matplotlib.patches import Rectangle

from ov_tuner.analyse.baselines import baseline_gains
from ov_tuner.analyse.diagnostics import (
    NOISY_FPS_CV,
    ClientBound,
    DiagnosticKind,
    DidNotSettle,
    PrecisionDiffers,
    RequestsNotParallel,
    diagnostics,
    how_measured,
)
from ov_tuner.analyse.figures import heatmap_data
from ov_tuner.analyse.heatmaps import Metric, heatmap_of
from ov_tuner.analyse.points import batch_series, best_per_device_precision, pareto_front
from ov_tuner.analyse.precisions import compare_precisions, int8_against_fastest_float, ran_by_scope, ran_in
from ov_tuner.analyse.saturation import saturation
from ov_tuner.schema import Ending, Environment, Mode, PointConfig, PointResult, Precision
from ov_tuner.workloads.sweep.present.heatmaps import heatmap_figure


def point(streams: int, nireq: int, fps: float, precision: Precision = Precision.FP32, **kwargs: object) -> PointResult:
    return make_point(streams, nireq, fps, precision=precision, **kwargs)  # type: ignore[arg-type]


failed = failed_point


def test_best_picks_most_fps_and_breaks_ties_by_fewer_streams_then_requests() -> None:
    points = [point(1, 1, 100), point(2, 4, 300), point(2, 2, 300), point(1, 4, 300), failed(4, 8),
              point(1, 1, 50, Precision.FP16)]
    best = {b.precision: b for b in best_per_device_precision(points)}
    assert (best[Precision.FP32].point.config.streams, best[Precision.FP32].point.config.nireq) == (1, 4)
    assert best[Precision.FP32].fps == pytest.approx(300)
    assert best[Precision.FP16].fps == pytest.approx(50)


def test_best_of_only_failed_points_is_nothing() -> None:
    assert best_per_device_precision([failed(1, 1)]) == []


def test_heatmap_places_values_and_marks_failures() -> None:
    points = [point(1, 1, 100), point(1, 2, 150), point(2, 1, 60), failed(2, 2)]
    grid = heatmap_of(points, "CPU", Precision.FP32, 1, Metric.FPS)
    assert grid.streams == (1, 2) and grid.nireqs == (1, 2)
    assert grid.values[0].tolist() == pytest.approx([100, 150])
    assert grid.values[1, 0] == pytest.approx(60)
    assert np.isnan(grid.values[1, 1]) and grid.failed[1, 1] and not grid.failed[0, 0]
    latency = heatmap_of(points, "CPU", Precision.FP32, 1, Metric.LATENCY_MEDIAN)
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
    assert isinstance(precision, PrecisionDiffers) and (precision.asked, precision.ran) == ("f16", "bf16")
    noisy = point(1, 2, 100, noisy=True).measurement
    assert noisy is not None and noisy.fps_cv is not None and noisy.fps_cv > NOISY_FPS_CV


def test_unsettled_and_client_bound_points_are_flagged() -> None:
    (unsettled,) = diagnostics([point(1, 1, 100, ended=Ending.UNSETTLED)])
    assert isinstance(unsettled, DidNotSettle) and unsettled.windows == 3
    (busy,) = diagnostics([point(1, 1, 100, client_cpu_share=0.97)])
    assert isinstance(busy, ClientBound) and busy.share == pytest.approx(0.97)
    assert diagnostics([point(1, 1, 100, ended=Ending.FIXED, client_cpu_share=0.5)]) == []
    assert diagnostics([point(1, 1, 100, ended=Ending.OUTPACED)]) == []  # stopped on purpose, not unstable


def test_how_measured_counts_why_measurements_ended_and_their_noise() -> None:
    points = [point(1, 1, 100), point(1, 2, 100, ended=Ending.OUTPACED), point(2, 2, 100, ended=Ending.OUTPACED),
              point(2, 4, 100, ended=Ending.UNSETTLED, noisy=True), failed_point(4, 4)]
    summary = how_measured(points)
    assert summary.points == 4
    assert {e: n for e, n in summary.endings.items() if n} == {Ending.SETTLED: 1, Ending.OUTPACED: 2,
                                                               Ending.UNSETTLED: 1}
    assert summary.max_cv == pytest.approx(0.3)  # the noisy point's windows: 0.7, 1.3 and 1 x its FPS
    assert how_measured([failed_point(1, 1)]).points == 0


def test_more_requests_that_raise_neither_fps_nor_latency_are_client_bound() -> None:
    # Device-bound: 1 -> 2 requests on one stream doubles the latency (queueing), FPS flat: fine.
    queueing = [point(1, 1, 100, latency_ms=10.0), point(1, 2, 101, latency_ms=19.8)]
    assert diagnostics(queueing) == []
    # Client-bound: FPS flat and latency flat, so the second request never ran beside the first.
    flat = [point(1, 1, 100, latency_ms=10.0), point(1, 2, 101, latency_ms=10.5)]
    (found,) = diagnostics(flat)
    assert isinstance(found, RequestsNotParallel) and (found.from_nireq, found.to_nireq) == (1, 2)


def test_heatmap_figure_has_three_panels_with_the_best_outlined(tmp_path: Path) -> None:
    env = Environment("2026.4.1", "0.1.0", "host", "cpu", 2, "3.11", "/m.xml", "0" * 64, "tiny")
    points = [point(1, 1, 100), point(1, 2, 150), point(2, 1, 60), failed(2, 2)]
    fig = heatmap_figure(heatmap_data(points, "CPU", Precision.FP32, 1), env, {})
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["Throughput (FPS)", "Median latency (ms)", "p90 latency (ms)"]
    outline = panels[0].patches[0]
    assert isinstance(outline, Rectangle)
    assert outline.get_xy() == (0.5, -0.5)  # column nireq=2, row streams=1: the 150 FPS cell
    texts = [t.get_text() for t in panels[0].texts]
    assert "150" in texts and "failed" in texts
    fig.savefig(tmp_path / "h.png")
    assert (tmp_path / "h.png").stat().st_size > 10_000


# -- saturation -------------------------------------------------------------------------------------


def grid_of(fps: dict[tuple[int, int], float], **kwargs: object) -> list[PointResult]:
    return [point(s, n, v, **kwargs) for (s, n), v in fps.items()]  # type: ignore[arg-type]


def test_saturation_is_the_smallest_configuration_within_five_percent_of_the_best() -> None:
    points = grid_of({(1, 1): 100, (1, 2): 180, (1, 4): 190, (2, 1): 90, (2, 2): 195, (2, 4): 200})
    (sat,) = saturation(points)
    assert (sat.point.config.streams, sat.point.config.nireq) == (1, 4)
    assert (sat.best.config.streams, sat.best.config.nireq) == (2, 4)
    assert sat.beyond is sat.best and sat.measured == 6


def test_saturation_when_the_best_is_the_smallest_compares_with_the_biggest() -> None:
    points = [*grid_of({(1, 1): 300, (1, 2): 250, (2, 4): 200}), failed(4, 8)]
    (sat,) = saturation(points)
    assert sat.point is sat.best and (sat.point.config.streams, sat.point.config.nireq) == (1, 1)
    assert sat.beyond is not None and (sat.beyond.config.streams, sat.beyond.config.nireq) == (2, 4)


def test_saturation_at_the_largest_configuration_says_more_may_pay() -> None:
    (sat,) = saturation(grid_of({(1, 1): 100, (2, 2): 150, (2, 4): 200}))
    assert sat.point is sat.best and sat.beyond is None and sat.measured == 3


def test_saturation_ties_go_to_fewer_streams() -> None:
    (sat,) = saturation(grid_of({(2, 2): 100, (1, 2): 100}))
    assert sat.point.config.streams == 1 and sat.best.config.streams == 1


def test_saturation_of_a_single_point_and_of_only_failures() -> None:
    (sat,) = saturation([point(1, 1, 50)])
    assert sat.beyond is None and sat.measured == 1
    assert saturation([failed(1, 1)]) == []


def test_saturation_tolerance_is_a_parameter() -> None:
    points = grid_of({(1, 1): 100, (1, 2): 180, (2, 4): 200})
    assert saturation(points, tolerance=0.15)[0].point.config.nireq == 2
    assert saturation(points, tolerance=0.0)[0].point.config.streams == 2


# -- Pareto front -----------------------------------------------------------------------------------


def test_pareto_front_keeps_only_undominated_points_by_rising_latency() -> None:
    a = point(1, 1, 100, latency_ms=1.0)
    b = point(1, 2, 150, latency_ms=2.0)
    c = point(2, 2, 140, latency_ms=3.0)  # slower and less throughput than b
    d = point(2, 4, 200, latency_ms=5.0)
    e = point(4, 4, 150, latency_ms=2.0)  # same as b on both: not strictly better, not on the front twice
    front = pareto_front([d, c, b, a, e, failed(4, 8)])
    assert [(p.fps, p.latency_ms(90)) for p in front] == [(100, 1.0), (150, 2.0), (200, 5.0)]
    assert pareto_front([a]) == [a]
    assert pareto_front([failed(1, 1)]) == []


def test_pareto_front_can_use_another_percentile() -> None:
    fast_median = point(1, 1, 100, latency_ms=1.0)
    assert pareto_front([fast_median], percentile=50) == [fast_median]


# -- precision comparison, baselines, batch ---------------------------------------------------------


def test_precision_ratio_per_cell_and_an_honest_note() -> None:
    fp32 = grid_of({(1, 1): 100, (1, 2): 200})
    fp16 = grid_of({(1, 1): 150, (1, 2): 250}, precision=Precision.FP16, ran="bf16")
    (cmp,) = compare_precisions(fp32 + fp16)
    assert cmp.fps_ratio.values[0].tolist() == pytest.approx([1.5, 1.25])
    assert cmp.latency_ratio.values[0].tolist() == pytest.approx([100 / 150, 200 / 250])
    assert cmp.best_fps_ratio == pytest.approx(1.25)
    assert cmp.ran == ((Precision.FP16, "bf16"),)  # fp32 ran what it is named; fp16 did not
    assert cmp.confirmed is None and cmp.paired == {}


def test_precision_comparison_needs_both_precisions() -> None:
    assert compare_precisions(grid_of({(1, 1): 100})) == []


def test_gain_over_the_hint_baselines() -> None:
    tuned = point(2, 4, 330)
    points = [tuned, baseline(Mode.THROUGHPUT, 2, 2, 300), baseline(Mode.LATENCY, 1, 1, 275)]
    gains = {g.baseline.config.mode: g for g in baseline_gains(tuned, points)}
    assert gains[Mode.THROUGHPUT].fps_gain == pytest.approx(0.10)
    assert gains[Mode.LATENCY].fps_gain == pytest.approx(330 / 275 - 1)
    # baselines never count as grid points
    assert best_per_device_precision(points)[0].point is tuned


def test_batch_series_takes_the_best_point_per_batch() -> None:
    points = [point(1, 1, 100, batch=1), point(2, 2, 120, batch=1), point(1, 1, 150, batch=4), failed(1, 1)]
    (series,) = batch_series(points)
    assert series.batches == (1, 4)
    assert [p.fps for p in series.best] == pytest.approx([120, 150])


def test_cells_smart_search_left_out_say_so() -> None:
    env = Environment("2026.4.1", "0.1.0", "host", "cpu", 2, "3.11", "/m.xml", "0" * 64, "tiny")
    data = heatmap_data([point(1, 1, 100), point(2, 2, 180)], "CPU", Precision.FP32, 1)
    fig = heatmap_figure(data, env, {})
    fps_panel = next(ax for ax in fig.axes if ax.get_title() == "Throughput (FPS)")
    assert sorted(t.get_text() for t in fps_panel.texts) == ["100", "180", "not measured", "not measured"]


def test_openvino_default_speaks_for_itself_not_for_fp32() -> None:
    """OpenVINO default asks for no precision and is filed under fp32; on a bf16 CPU it runs bf16. What fp32 ran
    comes from fp32's own compiles."""
    points = [make_point(2, 2, 100, ran="f32"), make_point(2, 4, 110, ran="f32"),
              baseline(Mode.DEFAULT, 2, 2, 180, ran="bf16")]
    assert ran_in(points, "CPU", Precision.FP32, 1) == {"f32"}
    assert ran_by_scope(points) == {("CPU", Precision.FP32, 1): "f32"}
    assert ran_by_scope([points[-1]]) == {}  # a default alone says nothing of fp32


def test_int8_against_the_fastest_float_is_head_to_head_where_the_round_paired_them() -> None:
    """int8 fastest, bf16 next, fp32 last, all in one round: int8 over bf16 is a paired ratio, not 'measured apart'
    (it once was, since the fastest precision overall was int8 itself)."""
    speeds = {Precision.FP32: 100.0, Precision.BF16: 180.0, Precision.INT8: 270.0}
    points = [make_point(2, 4, fps, precision=p) for p, fps in speeds.items()]
    configs = {p: PointConfig("CPU", p, 1, 2, 4) for p in speeds}
    round_ = round_of({configs[p]: [fps * f for f in (1.0, 0.97, 1.03, 1.0)] for p, fps in speeds.items()},
                      {c: 10.0 for c in configs.values()})
    against = int8_against_fastest_float(points, [round_])[("CPU", 1)]
    assert against.against is Precision.BF16 and against.confirmed is not None
    assert against.confirmed.value == pytest.approx(1.5, rel=0.01)
