"""Figures built as matplotlib Figure objects (no pyplot global state), saved with the Agg backend."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ov_tuner.analysis import HeatmapGrid, Metric, heatmap_grid, heatmap_groups
from ov_tuner.schema import DeviceInfo, Environment, PointResult, Precision

HEATMAP_METRICS = (Metric.FPS, Metric.LATENCY_MEDIAN, Metric.LATENCY_P90)


def _annotation(value: float) -> str:
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def _draw_heatmap(ax: Axes, grid: HeatmapGrid, metric: Metric, best_cell: tuple[int, int] | None) -> None:
    # Brighter is better in every panel; failed or missing cells are grey.
    cmap = colormaps["viridis" if metric.higher_is_better else "viridis_r"].with_extremes(bad="#d9d9d9")
    image = ax.imshow(np.ma.masked_invalid(grid.values), cmap=cmap, aspect="auto")
    finite = grid.values[np.isfinite(grid.values)]
    middle = (finite.min() + finite.max()) / 2 if finite.size else 0.0
    for (row, col), value in np.ndenumerate(grid.values):
        if grid.failed[row, col]:
            ax.text(col, row, "failed", ha="center", va="center", color="#b00020", fontsize=9)
        elif np.isfinite(value):
            bright = (value > middle) == metric.higher_is_better
            ax.text(col, row, _annotation(value), ha="center", va="center", fontsize=10,
                    color="black" if bright else "white")
    if best_cell is not None:
        row, col = best_cell
        ax.add_patch(Rectangle((col - 0.5, row - 0.5), 1, 1, fill=False, edgecolor="#ff2d55", linewidth=3))
    ax.set_xticks(range(len(grid.nireqs)), [str(n) for n in grid.nireqs])
    ax.set_yticks(range(len(grid.streams)), [str(s) for s in grid.streams])
    ax.set_xlabel("infer requests in flight (nireq)")
    ax.set_ylabel("streams (NUM_STREAMS)")
    ax.set_title(metric.heading)
    ax.figure.colorbar(image, ax=ax, shrink=0.85)


def heatmap_figure(points: list[PointResult], device: str, precision: Precision, batch: int,
                   env: Environment, device_info: DeviceInfo | None) -> Figure:
    """FPS, median and p90 latency over streams x nireq for one (device, precision, batch); best FPS outlined."""
    grids = {m: heatmap_grid(points, device, precision, batch, m) for m in HEATMAP_METRICS}
    fps = grids[Metric.FPS].values
    best_cell = None
    if np.isfinite(fps).any():
        row, col = np.unravel_index(np.nanargmax(fps), fps.shape)
        best_cell = (int(row), int(col))
    rows, cols = fps.shape
    fig = Figure(figsize=(max(12.0, 3 * cols + 6), max(3.6, 0.7 * rows + 2.4)), layout="constrained")
    axes = fig.subplots(1, len(HEATMAP_METRICS))
    for ax, metric in zip(axes, HEATMAP_METRICS, strict=True):
        _draw_heatmap(ax, grids[metric], metric, best_cell)
    executed = sorted({p.compile.executed_precision for p in points if p.compile is not None
                       and p.config.heatmap_key == (device, precision, batch)})
    ran = f" (ran {', '.join(executed)})" if executed else ""
    full_name = device_info.full_name if device_info else device
    fig.suptitle(f"{env.model_name} on {device}: {full_name}\n{precision.value}{ran}, batch {batch}; "
                 "best throughput outlined; brighter is better in every panel", fontsize=12)
    return fig


def write_heatmaps(points: list[PointResult], env: Environment, devices: dict[str, DeviceInfo],
                   out_dir: Path) -> list[Path]:
    """One PNG per (device, precision, batch) in `out_dir`; returns the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for device, precision, batch in heatmap_groups(points):
        fig = heatmap_figure(points, device, precision, batch, env, devices.get(device))
        safe_device = re.sub(r"[^A-Za-z0-9_-]", "-", device)  # GPU.0 -> GPU-0
        path = out_dir / f"heatmap_{safe_device}_{precision.value}_b{batch}.png"
        fig.savefig(path, dpi=110)
        written.append(path)
    return written
