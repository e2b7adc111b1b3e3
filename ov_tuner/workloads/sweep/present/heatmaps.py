"""Heatmaps over streams x requests: FPS and latency per device, precision and batch, and one precision over another
cell by cell."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib import colormaps, patheffects
from matplotlib.axes import Axes
from matplotlib.colors import Colormap, TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from ov_tuner.analyse.figures import HeatmapData, PrecisionData
from ov_tuner.analyse.heatmaps import Heatmap, HeatmapMarks, Metric
from ov_tuner.present.drawing import DEFAULT_MARKER, DEPLOYED_COLOUR
from ov_tuner.present.words.marks import default_mark_text, deployed_mark_text, fastest_mark_text
from ov_tuner.present.words.numbers import factor
from ov_tuner.schema import DeviceInfo, Environment, Quantization
from ov_tuner.workloads.sweep.present.words.accuracy import accuracy_summary
from ov_tuner.workloads.sweep.present.words.findings import comparison_notes

HEATMAP_METRICS = (Metric.FPS, Metric.LATENCY_MEDIAN, Metric.LATENCY_P90)
FASTEST_COLOUR = "#00c2ff"
# A white edge under each mark keeps it visible on any cell colour.
HALO = [patheffects.withStroke(linewidth=6, foreground="white")]


def _annotation(value: float) -> str:
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def _draw_heatmap(ax: Axes, heatmap: Heatmap, title: str, cmap: Colormap, marks: HeatmapMarks | None,
                  norm: TwoSlopeNorm | None = None, fmt: str = "") -> None:
    """Cells coloured and annotated with their value; failed cells say so; the marks drawn over them."""
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
    if marks is not None:
        _draw_marks(ax, marks)
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


def _device_name(device: str, devices: Mapping[str, DeviceInfo]) -> str:
    return f"{device}: {devices[device].full_name}" if device in devices else device


def _draw_marks(ax: Axes, marks: HeatmapMarks) -> None:
    """The deployed cell outlined solid, the fastest dashed over it (where they are one cell, both show), OpenVINO
    default a diamond in its cell's top left corner, clear of the value."""
    if marks.deployed is not None and marks.deployed.cell is not None:
        _outline(ax, marks.deployed.cell, DEPLOYED_COLOUR, "-", 4)
    if marks.fastest is not None:
        _outline(ax, marks.fastest, FASTEST_COLOUR, "--", 2)
    if marks.default is not None and marks.default.cell is not None:
        row, col = marks.default.cell
        ax.plot(col - 0.32, row - 0.27, **DEFAULT_MARKER)  # type: ignore[arg-type]


def _outline(ax: Axes, cell: tuple[int, int], colour: str, style: str, width: float) -> None:
    row, col = cell
    ax.add_patch(Rectangle((col - 0.5, row - 0.5), 1, 1, fill=False, edgecolor=colour, linewidth=width,
                           linestyle=style, path_effects=HALO, clip_on=False))  # whole at the panel's edge


def _legend(fig: Figure, marks: HeatmapMarks, heatmap: Heatmap, batch: int, one_precision: bool) -> None:
    """One entry a mark, below the panels; a mark that falls off the panel keeps its entry, with no symbol, to say
    where it is. `one_precision`: the panels are of one precision (else they compare two)."""
    deployed, default = marks.deployed, marks.default
    deploy = deployed_mark_text(deployed, one_precision)
    handles: list[Patch | Line2D] = [
        Patch(fill=False, edgecolor=DEPLOYED_COLOUR, linewidth=3, label=deploy)
        if deployed is not None and deployed.cell is not None else _unmarked(deploy)]
    if marks.fastest is not None:
        row, col = marks.fastest
        handles.append(Patch(fill=False, edgecolor=FASTEST_COLOUR, linewidth=2, linestyle="--",
                             label=fastest_mark_text(heatmap.streams[row], heatmap.nireqs[col])))
    if default is not None:
        text = default_mark_text(default, batch)
        handles.append(Line2D([], [], label=text, **DEFAULT_MARKER) if default.cell is not None  # type: ignore[arg-type]
                       else _unmarked(text))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=9, frameon=False)


def _unmarked(label: str) -> Line2D:
    """A legend entry with no symbol: a mark that this figure does not draw."""
    return Line2D([], [], linestyle="", label=label)


def heatmap_figure(data: HeatmapData, env: Environment, devices: Mapping[str, DeviceInfo]) -> Figure:
    """FPS, median and p90 latency over streams x nireq for one (device, precision, batch), with the configuration to
    deploy (the answer's), the fastest cell and OpenVINO default marked, and named in the legend."""
    heatmaps, marks = data.grids, data.marks
    fig = _figure_for(heatmaps[Metric.FPS], len(HEATMAP_METRICS))
    axes = fig.subplots(1, len(HEATMAP_METRICS))
    for ax, metric in zip(axes, HEATMAP_METRICS, strict=True):
        # Brighter is better in every panel.
        cmap = colormaps["viridis" if metric.higher_is_better else "viridis_r"]
        _draw_heatmap(ax, heatmaps[metric], metric.heading, cmap, marks)
    _legend(fig, marks, heatmaps[Metric.FPS], data.batch, one_precision=True)
    ran = f" (ran {', '.join(data.ran)})" if data.ran else ""
    fig.suptitle(f"{env.model_name} on {_device_name(data.device, devices)}\n{data.precision.value}{ran}, "
                 f"batch {data.batch}; brighter is better", fontsize=12, wrap=True)
    return fig


def precision_figure(data: PrecisionData, env: Environment, devices: Mapping[str, DeviceInfo],
                     paired_only: bool = False, quantization: Quantization | None = None) -> Figure:
    """FPS and p90 latency ratio (e.g. fp16 / fp32) per streams x nireq cell; 1.0 is white; the deployed cell and
    OpenVINO default's drawn and named in the legend.

    Cells compare points measured apart, in the search; those are hatched, and `paired_only` leaves them out.
    A cell measured head to head in both precisions in the confirmation round shows that ratio instead, and
    the title gives the best-to-best ratio from that round where there is one.
    """
    c, fps, apart, marks = data.comparison, data.fps, data.apart, data.marks
    fig = _figure_for(fps, 2)
    axes = fig.subplots(1, 2)
    panels = [(fps, "FPS ratio (higher: faster)", "RdBu"), (c.latency_ratio, "p90 latency ratio", "RdBu_r")]
    for ax, (heatmap, title, cmap) in zip(axes, panels, strict=True):
        shown = Heatmap(heatmap.streams, heatmap.nireqs, np.where(apart & paired_only, np.nan, heatmap.values),
                            heatmap.failed) if heatmap is fps else heatmap
        finite = shown.values[np.isfinite(shown.values)]
        spread = max(abs(finite - 1).max(), 0.05) if finite.size else 0.5
        norm = TwoSlopeNorm(vcenter=1.0, vmin=1 - spread, vmax=1 + spread)
        _draw_heatmap(ax, shown, f"{c.numerator.value} / {c.denominator.value}: {title}", colormaps[cmap], marks,
                      norm=norm, fmt=".2f")
        if not paired_only:
            for row, col in zip(*np.nonzero(apart & np.isfinite(heatmap.values)), strict=True):
                ax.add_patch(Rectangle((col - 0.5, row - 0.5), 1, 1, fill=False, hatch="//", edgecolor="#888888",
                                       linewidth=0))
    _legend(fig, marks, fps, c.batch, one_precision=False)
    notes = "; ".join(comparison_notes(c)) or "both ran the precision asked for"
    if data.accuracy is not None:
        notes += f"\n{c.numerator.value} outputs against fp32: {accuracy_summary(data.accuracy, quantization)}"
    best = (f"best-to-best head to head {factor(c.confirmed)}" if c.confirmed is not None
            else f"best-to-best {c.best_fps_ratio:.2f}x, measured apart")
    fig.suptitle(f"{env.model_name} on {_device_name(c.device, devices)}, batch {c.batch}: "
                 f"{c.numerator.value} vs {c.denominator.value}; {best}\n{notes}; hatched cells were measured apart, "
                 "in the search, the others head to head", fontsize=11, wrap=True)
    return fig
