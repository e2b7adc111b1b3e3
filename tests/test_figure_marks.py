"""Every figure shows the same answer: the configuration the answer deploys (not the fastest point measured, where
the tie rule chose a cheaper one), the fastest named as such, and OpenVINO default where it falls."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
from factories import baseline, make_point, round_of
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.image import imread
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from test_pipeline_present import DEFAULT, make_answer

from ov_tuner.analyse.answer import answer_of
from ov_tuner.analyse.figures import heatmap_data, pareto_data, plot_data, precision_data
from ov_tuner.analyse.heatmaps import figure_marks, heatmap_marks
from ov_tuner.analyse.precisions import compare_precisions
from ov_tuner.present.drawing import DEPLOYED_COLOUR
from ov_tuner.present.words.marks import NO_ANSWER, default_point_text, deployed_point_text
from ov_tuner.schema import DeviceInfo, Environment, Mode, PointResult, Precision
from ov_tuner.store.results import StoredResults
from ov_tuner.workloads.pipeline.present.figures import cameras_figure
from ov_tuner.workloads.sweep.present.figures import pareto_figure, write_figures
from ov_tuner.workloads.sweep.present.heatmaps import HEATMAP_METRICS, heatmap_figure, precision_figure

ENV = Environment("2026.4.1", "0.1.0", "host", "cpu", 2, "3.11", "/m/tiny.xml", "0" * 64, "tiny")
CPU = DeviceInfo("CPU", "AMD EPYC", (1, 2), 1, ("FP32",), "f32")
# streams x requests -> FPS: 2 x 4 measures fastest, 2 x 2 is within noise of it and cheaper.
GRID = {(1, 1): 100.0, (1, 2): 150.0, (2, 2): 230.0, (2, 4): 235.0}


def results(default_ran: str = "f32", default_cell: tuple[int, int] = (1, 2),
            extra: tuple[PointResult, ...] = ()) -> StoredResults:
    """A CPU sweep whose confirmation round finds 2 x 2 and 2 x 4 within noise, so the answer deploys 2 x 2 while
    2 x 4 measured the most FPS; OpenVINO default ran `default_ran` at `default_cell`."""
    points = [make_point(s, n, fps, latency_ms=4.0 * n) for (s, n), fps in GRID.items()]
    points += [baseline(Mode.DEFAULT, *default_cell, 140, ran=default_ran), *extra]
    contenders = [p.config for p in points[2:4]]
    wobble = [1.0, 1.02, 0.99, 1.01, 0.98, 1.0]
    round_ = round_of({c: [GRID[(c.streams, c.nireq)] * w for w in wobble] for c in contenders},
                      {c: 4.0 * c.nireq for c in contenders})
    return StoredResults(Path("results/marks.db"), ENV, {"CPU": CPU}, points, confirmations=[round_])


def deployed_of(stored: StoredResults) -> PointResult:
    return answer_of(stored).recommendation.winner


def xy(line: Line2D) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in np.asarray(line.get_xydata())]


def legend_texts(fig: Figure) -> list[str]:
    return [t.get_text() for legend in [*fig.legends, *(ax.get_legend() for ax in fig.axes)] if legend is not None
            for t in legend.get_texts()]


def test_the_heatmap_marks_the_answer_as_deployed_the_fastest_as_fastest_and_the_default_cell() -> None:
    stored = results()
    deployed = deployed_of(stored)
    assert (deployed.config.streams, deployed.config.nireq) == (2, 2)  # the tie rule's choice, not the fastest
    marks = heatmap_marks(stored.points, "CPU", Precision.FP32, 1, deployed)
    # rows: streams (1, 2); columns: requests (1, 2, 4)
    assert marks.deployed is not None and marks.deployed.cell == (1, 1)
    assert marks.fastest == (1, 2)
    assert marks.default is not None and marks.default.cell == (0, 1)
    fig = heatmap_figure(heatmap_data(stored.points, "CPU", Precision.FP32, 1, deployed), ENV, {"CPU": CPU})
    assert legend_texts(fig) == ["deploy: 2 x 2 (the answer)", "fastest measured: 2 x 4",
                                 "OpenVINO default (1 x 2, ran fp32)"]
    fps_panel = next(ax for ax in fig.axes if ax.get_title() == "Throughput (FPS)")
    outlined = [(p.get_xy(), p.get_linestyle()) for p in fps_panel.patches if isinstance(p, Rectangle)]
    assert outlined == [((0.5, 0.5), "-"), ((1.5, 0.5), "--")]  # the deployed cell solid, the fastest dashed


def test_a_default_that_ran_another_precision_is_said_to_be_outside_the_panel() -> None:
    stored = results(default_ran="bf16")
    marks = heatmap_marks(stored.points, "CPU", Precision.FP32, 1, deployed_of(stored))
    assert marks.default is not None and not marks.default.in_panel and marks.default.cell is None
    assert marks.default.config.precision is Precision.BF16
    fig = heatmap_figure(heatmap_data(stored.points, "CPU", Precision.FP32, 1, deployed_of(stored)), ENV,
                         {"CPU": CPU})
    assert "OpenVINO default (1 x 2, ran bf16): not in this panel" in legend_texts(fig)
    assert not [line for ax in fig.axes for line in ax.lines if line.get_marker() == "D"]  # no diamond drawn


def test_a_default_beyond_the_streams_and_requests_measured_is_said() -> None:
    stored = results(default_cell=(4, 8))
    marks = heatmap_marks(stored.points, "CPU", Precision.FP32, 1, deployed_of(stored))
    assert marks.default is not None and marks.default.in_panel and marks.default.cell is None
    fig = heatmap_figure(heatmap_data(stored.points, "CPU", Precision.FP32, 1, deployed_of(stored)), ENV,
                         {"CPU": CPU})
    assert "OpenVINO default (4 x 8, ran fp32): outside the streams x requests measured" in legend_texts(fig)


def test_another_panel_names_where_the_answer_is() -> None:
    fp32_b2 = tuple(make_point(s, n, fps, batch=2) for (s, n), fps in GRID.items())
    stored = results(extra=fp32_b2)
    deployed = deployed_of(stored)
    marks = heatmap_marks(stored.points, "CPU", Precision.FP32, 2, deployed)
    assert marks.deployed is not None and not marks.deployed.in_panel and marks.deployed.cell is None
    assert marks.default is not None and not marks.default.in_panel  # it ran at batch 1 only
    texts = legend_texts(heatmap_figure(heatmap_data(stored.points, "CPU", Precision.FP32, 2, deployed), ENV, {}))
    assert texts[0] == "deploy: CPU fp32 batch 1 2 streams x 2 requests (the answer): not in this panel"
    assert "OpenVINO default (1 x 2, ran fp32) at batch 1: not in this panel" in texts


def test_the_pareto_figure_marks_the_deployed_point_and_the_default() -> None:
    stored = results()
    deployed = deployed_of(stored)
    marks = figure_marks(stored.points, deployed)
    default = next(p for p in stored.points if p.config.mode is Mode.DEFAULT)
    assert marks.deployed is deployed and marks.default is default
    fig = pareto_figure(pareto_data(stored.points), ENV, marks)
    texts = legend_texts(fig)
    assert texts[:2] == [deployed_point_text(deployed), default_point_text(default)]
    assert texts[:2] == ["deploy (the answer): CPU fp32 batch 1 2 streams x 2 requests",
                         "OpenVINO default: CPU batch 1 (1 x 2, ran f32)"]
    (ax,) = fig.axes
    ring = next(line for line in ax.lines if line.get_marker() == "o")
    assert ring.get_markeredgecolor() == DEPLOYED_COLOUR
    assert xy(ring) == [(deployed.latency_ms(90), deployed.fps)]
    diamond = next(line for line in ax.lines if line.get_marker() == "D")
    assert xy(diamond) == [(default.latency_ms(90), default.fps)]


def test_without_an_answer_the_figures_say_there_is_nothing_to_deploy() -> None:
    stored = results()
    data = heatmap_data(stored.points, "CPU", Precision.FP32, 1)
    assert data.marks.deployed is None
    assert legend_texts(heatmap_figure(data, ENV, {}))[0] == NO_ANSWER
    marks = figure_marks(stored.points, None)
    assert legend_texts(pareto_figure(pareto_data(stored.points), ENV, marks))[0] == NO_ANSWER


def test_the_precision_figure_marks_the_deployed_cell_of_either_precision() -> None:
    fp16 = tuple(make_point(s, n, fps * 1.1, precision=Precision.FP16) for (s, n), fps in GRID.items())
    stored = results(extra=fp16)
    deployed = deployed_of(stored)
    (comparison,) = compare_precisions(stored.points)
    data = precision_data(stored.points, comparison, stored.accuracies, deployed)
    marks = data.marks
    assert marks.deployed is not None and marks.deployed.cell is not None and marks.fastest is None
    grid = comparison.fps_ratio
    c = deployed.config
    assert marks.deployed.cell == (grid.streams.index(c.streams), grid.nireqs.index(c.nireq))
    assert marks.default is not None and marks.default.cell == (0, 1)
    texts = legend_texts(precision_figure(data, ENV, {}))
    assert texts == [f"deploy: {c.label()} (the answer)",  # the panel compares two precisions: the full label
                     "OpenVINO default (1 x 2, ran fp32)"]


def test_plot_writes_every_figure_with_the_marks(tmp_path: Path) -> None:
    fp32_b2 = tuple(make_point(s, n, fps * 1.5, batch=2) for (s, n), fps in GRID.items())
    stored = results(extra=fp32_b2)
    written = write_figures(plot_data(stored, answer_of(stored)), tmp_path)
    assert [p.name for p in written.all()] == ["heatmap_CPU_fp32_b1.png", "heatmap_CPU_fp32_b2.png", "pareto.png",
                                               "batch.png"]
    assert all(imread(p).shape[0] > 300 for p in written.all())


def test_the_pipeline_figure_marks_the_answers_split_and_the_defaults() -> None:
    answer = make_answer()
    (ax,) = cameras_figure(answer).axes
    order = sorted(answer.tried, key=lambda t: -t.cameras)
    labels = [t.get_text() for t in ax.texts]
    found = answer.rounds[0].walked
    assert found is not None  # the answer's bar says its headline: the cameras with their interval
    assert f"5 (95%: {found.low:g}..{found.high:g})\nthe answer" in labels and "4\nOpenVINO default" in labels
    at = next(i for i, t in enumerate(order) if t.split == DEFAULT)
    (diamond,) = [line for line in ax.lines if line.get_marker() == "D"]
    ((x, y),) = xy(diamond)
    assert abs(x - at) < 0.4 and y == 4  # on OpenVINO default's bar
    outlined = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_linewidth() > 0]
    assert len(outlined) == 1 and outlined[0].get_height() == 5
    legend = ax.get_legend()
    assert legend is not None and isinstance(legend.legend_handles[1], Line2D)
    # the answer drawn at its headline, not at its search's figure (the demo drew 5 beside "serves 4 (95%: 3..6)")
    lower = dataclasses.replace(answer, cameras=4)
    bars = [p for p in cameras_figure(lower).axes[0].patches if isinstance(p, Rectangle) and p.get_linewidth() > 0]
    assert [b.get_height() for b in bars] == [4]
    assert f"4 (95%: {found.low:g}..{found.high:g})\nthe answer" in [t.get_text() for t in
                                                                    cameras_figure(lower).axes[0].texts]



def _cell_texts(ax: Axes) -> dict[tuple[int, int], str]:
    """Each cell's annotation, by (row, column)."""
    return {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text() for t in ax.texts}


def test_each_heatmap_draws_and_labels_every_cell_with_the_points_own_figure() -> None:
    stored = results()
    data = heatmap_data(stored.points, "CPU", Precision.FP32, 1, deployed_of(stored))
    fig = heatmap_figure(data, ENV, {"CPU": CPU})
    measured = [p for p in stored.points if p.config.mode is Mode.EXPLICIT]
    for metric in HEATMAP_METRICS:
        ax = next(a for a in fig.axes if a.get_title() == metric.heading)
        grid = data.grids[metric]
        shown = ax.images[0].get_array()
        assert shown is not None
        drawn = np.ma.filled(shown, np.nan)
        texts = _cell_texts(ax)
        for p in measured:
            cell = (grid.streams.index(p.config.streams), grid.nireqs.index(p.config.nireq))
            assert drawn[cell] == metric.of(p)  # the colour is the point's figure, as stored
            assert texts[cell] == (f"{metric.of(p):.0f}" if metric.of(p) >= 100 else f"{metric.of(p):.3g}")
        # the one cell no point measured (2 streams x 1 request) is said so, not drawn as a value
        assert texts[(1, 0)] == "not measured" and np.isnan(drawn[1, 0])


def test_the_precision_figure_draws_each_cells_ratio_of_the_two_points_and_states_the_best_to_best() -> None:
    fp16 = tuple(make_point(s, n, fps * 1.1, precision=Precision.FP16, latency_ms=2.0 * n)
                 for (s, n), fps in GRID.items())
    stored = results(extra=fp16)
    (comparison,) = compare_precisions(stored.points)
    data = precision_data(stored.points, comparison, stored.accuracies, deployed_of(stored))
    fig = precision_figure(data, ENV, {})
    fps_ax = next(a for a in fig.axes if a.get_title().endswith("FPS ratio (higher: faster)"))
    latency_ax = next(a for a in fig.axes if a.get_title().endswith("p90 latency ratio"))
    fp32 = {(p.config.streams, p.config.nireq): p for p in stored.points
            if p.config.mode is Mode.EXPLICIT and p.config.precision is Precision.FP32 and p.config.batch == 1}
    grid = comparison.fps_ratio
    for p in fp16:
        cell = (grid.streams.index(p.config.streams), grid.nireqs.index(p.config.nireq))
        base = fp32[(p.config.streams, p.config.nireq)]
        assert _cell_texts(fps_ax)[cell] == f"{p.fps / base.fps:.2f}"
        assert _cell_texts(latency_ax)[cell] == f"{p.latency_ms(90) / base.latency_ms(90):.2f}"
    assert f"best-to-best {comparison.best_fps_ratio:.2f}x, measured apart" in fig.get_suptitle()
    assert f"{comparison.best_fps_ratio:.2f}" == "1.10"
