"""No figure text falls outside its canvas: every title, label and annotation of each figure kind the report uses,
drawn at the size the report draws it, lies inside the figure."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from factories import make_point
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.image import imread
from matplotlib.text import Text
from test_renderers import constructed_results

from ov_tuner.analyse.answer import answer_of
from ov_tuner.analyse.figures import heatmap_data, pareto_data, precision_data
from ov_tuner.analyse.heatmaps import figure_marks
from ov_tuner.analyse.points import batch_series
from ov_tuner.analyse.precisions import compare_precisions
from ov_tuner.present.drawing import save_figure
from ov_tuner.schema import Precision
from ov_tuner.workloads.sweep.present.figures import batch_figure, pareto_figure
from ov_tuner.workloads.sweep.present.heatmaps import heatmap_figure, precision_figure


def outside(fig: Figure) -> list[str]:
    """What of `fig`, once drawn, reaches past its canvas (a pixel of slack): matplotlib's tight bounding box holds
    every drawn artist (tick labels outside the axes' limits are not drawn, so not counted); the titles and labels
    that stick out are named."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    slack = 1 / fig.dpi
    tight, size = fig.get_tightbbox(renderer), fig.get_size_inches()
    if tight.x0 >= -slack and tight.y0 >= -slack and tight.x1 <= size[0] + slack and tight.y1 <= size[1] + slack:
        return []
    width, height = fig.bbox.width, fig.bbox.height
    named = [text.get_text() for text in fig.findobj(Text) if text.get_visible() and text.get_text().strip()
             and not ((box := text.get_window_extent(renderer)).x0 >= 0 and box.x1 <= width + 1
                      and box.y0 >= 0 and box.y1 <= height + 1)]
    return named or [f"drawn over {tight}, canvas {size[0]:.2f} x {size[1]:.2f} in"]


def test_every_figure_kind_keeps_its_text_inside_the_canvas() -> None:
    results = constructed_results()
    fp16 = [make_point(s, n, fps * 1.1, precision=Precision.FP16, batch=b)
            for s, n, fps in ((1, 2, 150), (2, 2, 230), (2, 4, 235)) for b in (1, 2)]
    fp32_b2 = [make_point(s, n, fps * 1.6, batch=2) for s, n, fps in ((1, 2, 150), (2, 2, 230), (2, 4, 235))]
    points = [*results.points, *fp16, *fp32_b2]
    env, devices = results.environment, results.devices
    comparison = next(iter(compare_precisions(points)))
    deployed = answer_of(results).recommendation.winner  # with the marks' legends, the widest each figure gets
    fp16_outputs = replace(results.accuracies[0], precision=Precision.FP16)
    figures = {
        "heatmap": heatmap_figure(heatmap_data(points, "CPU", Precision.FP32, 1, deployed), env, devices),
        "heatmap, elsewhere": heatmap_figure(heatmap_data(points, "CPU", Precision.FP16, 2, deployed), env, devices),
        "precision": precision_figure(precision_data(points, comparison, [fp16_outputs], deployed), env, devices),
        "pareto": pareto_figure(pareto_data(points), env, figure_marks(points, deployed)),
        "batch": batch_figure(batch_series(points), env, figure_marks(points, deployed)),
    }
    clipped = {name: texts for name, fig in figures.items() if (texts := outside(fig))}
    assert not clipped, clipped


def test_a_saved_figure_takes_in_text_wider_than_its_canvas(tmp_path: Path) -> None:
    """Whatever a figure kind draws past its canvas, the file save_figure writes holds it whole."""
    fig = Figure(figsize=(2, 2))
    fig.add_subplot().plot([0, 1])
    fig.suptitle("a title far wider than the two inches of this figure, which a plain save would cut off")
    assert outside(fig)
    width = imread(save_figure(fig, tmp_path, "wide")).shape[1]
    assert width > 2 * 110 * 1.5  # well past the canvas's 220 pixels at the report's 110 dpi
