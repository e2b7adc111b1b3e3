"""Heatmaps over streams x requests: FPS and latency per device, precision and batch, and one precision over another
cell by cell."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colors import Colormap, TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ov_tuner.analyse.heatmaps import Heatmap, Metric, heatmap_of
from ov_tuner.analyse.precisions import PrecisionComparison, ran_in
from ov_tuner.analyse.saturation import saturation
from ov_tuner.present.words.accuracy import accuracy_summary
from ov_tuner.present.words.findings import comparison_notes
from ov_tuner.present.words.numbers import factor
from ov_tuner.schema import Accuracy, DeviceInfo, Environment, PointResult, Precision, Quantization

HEATMAP_METRICS = (Metric.FPS, Metric.LATENCY_MEDIAN, Metric.LATENCY_P90)
BEST_COLOUR, SATURATION_COLOUR = "#ff2d55", "#00c2ff"


@dataclass(frozen=True)
class CellMark:
    cell: tuple[int, int]
    colour: str
    style: str  # matplotlib line style: "-" best, "--" saturation


def _annotation(value: float) -> str:
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def _draw_heatmap(ax: Axes, heatmap: Heatmap, title: str, cmap: Colormap, marks: list[CellMark],
               norm: TwoSlopeNorm | None = None, fmt: str = "") -> None:
    """Cells coloured and annotated with their value; failed cells say so; marked cells outlined."""
    image = ax.imshow(np.ma.masked_invalid(heatmap.values), cmap=cmap.with_extremes(bad="#d9d9d9"), norm=norm,
                      aspect="auto")
    for (row, col), value in np.ndenumerate(heatmap.values):
        if heatmap.failed[row, col]:
            ax.text(col, row, "failed", ha="center", va="center", color="#b00020", fontsize=9)
        elif not np.isfinite(value):  # left out by smart search, or not in this sweep
            ax.text(col, row, "not measured", ha="center", va="center", color="#707070", fontsize=8)
        else:
            r, g, b, _ = image.cmap(image.norm(value))
            dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
            ax.text(col, row, format(value, fmt) if fmt else _annotation(value), ha="center", va="center",
                    fontsize=10, color="white" if dark else "black")
    for mark in marks:
        row, col = mark.cell
        ax.add_patch(Rectangle((col - 0.5, row - 0.5), 1, 1, fill=False, edgecolor=mark.colour, linewidth=3,
                               linestyle=mark.style))
    ax.set_xticks(range(len(heatmap.nireqs)), [str(n) for n in heatmap.nireqs])
    ax.set_yticks(range(len(heatmap.streams)), [str(s) for s in heatmap.streams])
    ax.set_xlabel("infer requests in flight (nireq)")
    ax.set_ylabel("streams (NUM_STREAMS)")
    ax.set_title(title, wrap=True)
    ax.figure.colorbar(image, ax=ax, shrink=0.85)


def _figure_for(heatmap: Heatmap, panels: int) -> Figure:
    rows, cols = heatmap.values.shape
    return Figure(figsize=(max(4.5 * panels, 3 * cols * panels / 1.5), max(3.8, 0.7 * rows + 2.6)),
                  layout="constrained")


def _device_name(device: str, devices: dict[str, DeviceInfo]) -> str:
    return f"{device}: {devices[device].full_name}" if device in devices else device


def heatmap_figure(points: list[PointResult], device: str, precision: Precision, batch: int,
                   env: Environment, devices: dict[str, DeviceInfo]) -> Figure:
    """FPS, median and p90 latency over streams x nireq for one (device, precision, batch).

    The best FPS cell is outlined solid, the saturation point (smallest configuration within 5% of it) dashed.
    """
    heatmaps = {m: heatmap_of(points, device, precision, batch, m) for m in HEATMAP_METRICS}
    marks = []
    for s in saturation(points):
        if (s.device, s.precision, s.batch) == (device, precision, batch):
            marks = [CellMark(heatmaps[Metric.FPS].cell(s.best), BEST_COLOUR, "-"),
                     CellMark(heatmaps[Metric.FPS].cell(s.point), SATURATION_COLOUR, "--")]
    fig = _figure_for(heatmaps[Metric.FPS], len(HEATMAP_METRICS))
    axes = fig.subplots(1, len(HEATMAP_METRICS))
    for ax, metric in zip(axes, HEATMAP_METRICS, strict=True):
        # Brighter is better in every panel.
        cmap = colormaps["viridis" if metric.higher_is_better else "viridis_r"]
        _draw_heatmap(ax, heatmaps[metric], metric.heading, cmap, marks)
    executed = sorted(ran_in(points, device, precision, batch))
    ran = f" (ran {', '.join(executed)})" if executed else ""
    fig.suptitle(f"{env.model_name} on {_device_name(device, devices)}\n{precision.value}{ran}, batch {batch}; "
                 "best throughput outlined solid, saturation point dashed; brighter is better", fontsize=12, wrap=True)
    return fig


def precision_figure(comparison: PrecisionComparison, env: Environment, devices: dict[str, DeviceInfo],
                     paired_only: bool = False, accuracy: Accuracy | None = None,
                     quantization: Quantization | None = None) -> Figure:
    """FPS and p90 latency ratio (e.g. fp16 / fp32) per streams x nireq cell; 1.0 is white.

    Cells compare points measured apart, in the search; those are hatched, and `paired_only` leaves them out.
    A cell measured head to head in both precisions in the confirmation round shows that ratio instead, and
    the title gives the best-to-best ratio from that round where there is one.
    """
    c = comparison
    fps = c.fps_ratio
    apart = np.ones_like(fps.values, dtype=bool)
    for (streams, nireq), ratio in c.paired.items():
        if streams in fps.streams and nireq in fps.nireqs:
            cell = (fps.streams.index(streams), fps.nireqs.index(nireq))
            fps.values[cell] = ratio.value
            apart[cell] = False
    fig = _figure_for(fps, 2)
    axes = fig.subplots(1, 2)
    panels = [(fps, "FPS ratio (higher: faster)", "RdBu"), (c.latency_ratio, "p90 latency ratio", "RdBu_r")]
    for ax, (heatmap, title, cmap) in zip(axes, panels, strict=True):
        shown = Heatmap(heatmap.streams, heatmap.nireqs, np.where(apart & paired_only, np.nan, heatmap.values),
                            heatmap.failed) if heatmap is fps else heatmap
        finite = shown.values[np.isfinite(shown.values)]
        spread = max(abs(finite - 1).max(), 0.05) if finite.size else 0.5
        norm = TwoSlopeNorm(vcenter=1.0, vmin=1 - spread, vmax=1 + spread)
        _draw_heatmap(ax, shown, f"{c.numerator.value} / {c.denominator.value}: {title}", colormaps[cmap], [],
                   norm=norm, fmt=".2f")
        if not paired_only:
            for row, col in zip(*np.nonzero(apart & np.isfinite(heatmap.values)), strict=True):
                ax.add_patch(Rectangle((col - 0.5, row - 0.5), 1, 1, fill=False, hatch="//", edgecolor="#888888",
                                       linewidth=0))
    notes = "; ".join(comparison_notes(c)) or "both ran the precision asked for"
    if accuracy is not None:
        notes += f"\n{c.numerator.value} outputs against fp32: {accuracy_summary(accuracy, quantization)}"
    best = (f"best-to-best head to head {factor(c.confirmed)}" if c.confirmed is not None
            else f"best-to-best {c.best_fps_ratio:.2f}x, measured apart")
    fig.suptitle(f"{env.model_name} on {_device_name(c.device, devices)}, batch {c.batch}: "
                 f"{c.numerator.value} vs {c.denominator.value}; {best}\n{notes}; hatched cells were measured apart, "
                 "in the search, the others head to head", fontsize=11, wrap=True)
    return fig
