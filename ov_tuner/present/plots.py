"""Figures built as matplotlib Figure objects (no pyplot global state), saved with the Agg backend."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colors import Colormap, TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from ov_tuner.analyse.compare import Comparison, matched_label
from ov_tuner.analyse.heatmaps import Heatmap, Metric, heatmap_grid, heatmap_groups
from ov_tuner.analyse.points import BatchSeries, batch_series, explicit_points, fastest, pareto_front, short_label
from ov_tuner.analyse.precisions import PrecisionComparison, compare_precisions, ran_in
from ov_tuner.analyse.saturation import saturation
from ov_tuner.present.edge_figures import capacity_figure, soak_figure
from ov_tuner.schema import Accuracy, DeviceInfo, Environment, PointResult, Precision, Profile
from ov_tuner.store.results import StoredResults

HEATMAP_METRICS = (Metric.FPS, Metric.LATENCY_MEDIAN, Metric.LATENCY_P90)
BEST_COLOUR, SATURATION_COLOUR = "#ff2d55", "#00c2ff"


@dataclass(frozen=True)
class CellMark:
    cell: tuple[int, int]
    colour: str
    style: str  # matplotlib line style: "-" best, "--" saturation


def _annotation(value: float) -> str:
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def _draw_grid(ax: Axes, grid: Heatmap, title: str, cmap: Colormap, marks: list[CellMark],
               norm: TwoSlopeNorm | None = None, fmt: str = "") -> None:
    """Cells coloured and annotated with their value; failed cells say so; marked cells outlined."""
    image = ax.imshow(np.ma.masked_invalid(grid.values), cmap=cmap.with_extremes(bad="#d9d9d9"), norm=norm,
                      aspect="auto")
    for (row, col), value in np.ndenumerate(grid.values):
        if grid.failed[row, col]:
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
    ax.set_xticks(range(len(grid.nireqs)), [str(n) for n in grid.nireqs])
    ax.set_yticks(range(len(grid.streams)), [str(s) for s in grid.streams])
    ax.set_xlabel("infer requests in flight (nireq)")
    ax.set_ylabel("streams (NUM_STREAMS)")
    ax.set_title(title)
    ax.figure.colorbar(image, ax=ax, shrink=0.85)


def _figure_for(grid: Heatmap, panels: int) -> Figure:
    rows, cols = grid.values.shape
    return Figure(figsize=(max(4.5 * panels, 3 * cols * panels / 1.5), max(3.8, 0.7 * rows + 2.6)),
                  layout="constrained")


def _device_name(device: str, devices: dict[str, DeviceInfo]) -> str:
    return f"{device}: {devices[device].full_name}" if device in devices else device


def heatmap_figure(points: list[PointResult], device: str, precision: Precision, batch: int,
                   env: Environment, devices: dict[str, DeviceInfo]) -> Figure:
    """FPS, median and p90 latency over streams x nireq for one (device, precision, batch).

    The best FPS cell is outlined solid, the saturation point (smallest configuration within 5% of it) dashed.
    """
    grids = {m: heatmap_grid(points, device, precision, batch, m) for m in HEATMAP_METRICS}
    marks = []
    for s in saturation(points):
        if (s.device, s.precision, s.batch) == (device, precision, batch):
            marks = [CellMark(grids[Metric.FPS].cell(s.best), BEST_COLOUR, "-"),
                     CellMark(grids[Metric.FPS].cell(s.point), SATURATION_COLOUR, "--")]
    fig = _figure_for(grids[Metric.FPS], len(HEATMAP_METRICS))
    axes = fig.subplots(1, len(HEATMAP_METRICS))
    for ax, metric in zip(axes, HEATMAP_METRICS, strict=True):
        # Brighter is better in every panel.
        cmap = colormaps["viridis" if metric.higher_is_better else "viridis_r"]
        _draw_grid(ax, grids[metric], metric.heading, cmap, marks)
    executed = sorted(ran_in(points, device, precision, batch))
    ran = f" (ran {', '.join(executed)})" if executed else ""
    fig.suptitle(f"{env.model_name} on {_device_name(device, devices)}\n{precision.value}{ran}, batch {batch}; "
                 "best throughput outlined solid, saturation point dashed; brighter is better", fontsize=12)
    return fig


def precision_figure(comparison: PrecisionComparison, env: Environment, devices: dict[str, DeviceInfo],
                     paired_only: bool = False, accuracy: Accuracy | None = None) -> Figure:
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
    for ax, (grid, title, cmap) in zip(axes, panels, strict=True):
        shown = Heatmap(grid.streams, grid.nireqs, np.where(apart & paired_only, np.nan, grid.values),
                            grid.failed) if grid is fps else grid
        finite = shown.values[np.isfinite(shown.values)]
        spread = max(abs(finite - 1).max(), 0.05) if finite.size else 0.5
        norm = TwoSlopeNorm(vcenter=1.0, vmin=1 - spread, vmax=1 + spread)
        _draw_grid(ax, shown, f"{c.numerator.value} / {c.denominator.value}: {title}", colormaps[cmap], [],
                   norm=norm, fmt=".2f")
        if not paired_only:
            for row, col in zip(*np.nonzero(apart & np.isfinite(grid.values)), strict=True):
                ax.add_patch(Rectangle((col - 0.5, row - 0.5), 1, 1, fill=False, hatch="//", edgecolor="#888888",
                                       linewidth=0))
    notes = "; ".join(c.notes) if c.notes else "both ran the precision asked for"
    if accuracy is not None:
        notes += f"\n{c.numerator.value} outputs against fp32: {accuracy.summary()}"
    best = (f"best-to-best head to head {c.confirmed.as_factor()}" if c.confirmed is not None
            else f"best-to-best {c.best_fps_ratio:.2f}x, measured apart")
    fig.suptitle(f"{env.model_name} on {_device_name(c.device, devices)}, batch {c.batch}: "
                 f"{c.numerator.value} vs {c.denominator.value}; {best}\n{notes}; hatched cells were measured apart, "
                 "in the search, the others head to head", fontsize=11)
    return fig


def pareto_figure(points: list[PointResult], env: Environment, percentile: int = 90) -> Figure:
    """Throughput against latency for every measured point; the Pareto front joined and labelled."""
    fig = Figure(figsize=(10, 6.5), layout="constrained")
    ax = fig.subplots()
    measured = [p for p in points if p.ok]
    series = sorted({(p.config.device, p.config.precision, p.config.batch) for p in measured})
    palette = colormaps["tab10"]
    for i, (device, precision, batch) in enumerate(series):
        members = [p for p in measured if p.config.heatmap_key == (device, precision, batch)]
        grid = [p for p in members if p.config.explicit]
        hints = [p for p in members if not p.config.explicit]
        colour = palette(i % 10)
        ax.scatter([p.latency_ms(percentile) for p in grid], [p.fps for p in grid], color=colour, s=36, alpha=0.7,
                   label=f"{device} {precision.value} batch {batch}")
        ax.scatter([p.latency_ms(percentile) for p in hints], [p.fps for p in hints], color=colour, marker="^", s=70,
                   edgecolor="black")
    front = pareto_front(measured, percentile)
    ax.plot([p.latency_ms(percentile) for p in front], [p.fps for p in front], color="black", linewidth=1.5,
            zorder=0)
    on_front = {id(p) for p in front}
    for p in measured:  # every point says its configuration; the front ones say it in full
        full = id(p) in on_front
        text = f"{p.config.device} {p.config.precision.value} b{p.config.batch} {short_label(p)}" if full \
            else short_label(p)
        ax.annotate(text, (p.latency_ms(percentile), p.fps), textcoords="offset points", xytext=(5, 3),
                    fontsize=8 if full else 6, color="black" if full else "#666666")
    name = "median" if percentile == 50 else f"p{percentile}"
    ax.set_xlabel(f"{name} latency per request (ms)")
    ax.set_ylabel("throughput (FPS)")
    ax.grid(alpha=0.3)
    handles, _ = ax.get_legend_handles_labels()
    handles += [Line2D([], [], color="black", label="Pareto front"),
                Line2D([], [], marker="^", linestyle="", color="grey", markeredgecolor="black",
                       label="OpenVINO performance-hint baseline")]
    ax.legend(handles=handles, fontsize=8, loc="lower right")
    ax.set_title(f"{env.model_name}: throughput vs {name} latency (up and left is better)")
    return fig


def virtual_figure(points: list[PointResult], device: DeviceInfo, env: Environment) -> Figure:
    """A virtual device's FPS against requests in flight, one line per hint and precision, with the best of each of
    its members alone as a dashed line."""
    fig = Figure(figsize=(10, 5.5), layout="constrained")
    ax = fig.subplots()
    measured = [p for p in explicit_points(points) if p.config.device == device.name]
    for mode, precision in sorted({(p.config.mode.value, p.config.precision.value) for p in measured}):
        line = sorted((p for p in measured if (p.config.mode.value, p.config.precision.value) == (mode, precision)),
                      key=lambda p: p.config.nireq)
        ax.plot([p.config.nireq for p in line], [p.fps for p in line], marker="o", label=f"{mode} {precision}")
    for member in device.members:
        alone = fastest(p for p in explicit_points(points) if p.config.device == member and not p.config.settings)
        if alone is not None:
            ax.axhline(alone.fps, linestyle="--", color="grey")
            ax.annotate(f"{member} alone, tuned ({short_label(alone)}): {alone.fps:.0f} FPS", (0.01, alone.fps),
                        xycoords=("axes fraction", "data"), fontsize=8, va="bottom")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("infer requests in flight (nireq)")
    ax.set_ylabel("throughput (FPS)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(f"{env.model_name} on {device.name}: each hint against its members tuned alone")
    return fig


def comparison_figure(comparison: Comparison) -> Figure:
    """FPS of every configuration measured in all files, one bar per file, side by side."""
    matched = comparison.matched
    fig = Figure(figsize=(max(8.0, 0.9 * len(matched) * len(comparison.files) + 3), 5.5), layout="constrained")
    ax = fig.subplots()
    width = 0.8 / len(comparison.files)
    for i, results in enumerate(comparison.files):
        ax.bar([k + i * width for k in range(len(matched))], [m.points[i].fps for m in matched], width,
               label=f"file {i + 1}: {results.environment.host} ({results.path.name})")
    ax.set_xticks([k + width * (len(comparison.files) - 1) / 2 for k in range(len(matched))],
                  [matched_label(m) for m in matched], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("throughput (FPS)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(f"{comparison.files[0].environment.model_name}: the same configurations in each file")
    return fig


def batch_figure(series: list[BatchSeries], env: Environment) -> Figure:
    """Best FPS and its p90 latency against batch size, one line per device and precision."""
    fig = Figure(figsize=(11, 4.5), layout="constrained")
    fps_ax, lat_ax = fig.subplots(1, 2)
    for s in series:
        label = f"{s.device} {s.precision.value}"
        fps_ax.plot(s.batches, [p.fps for p in s.best], marker="o", label=label)
        lat_ax.plot(s.batches, [p.latency_ms(90) for p in s.best], marker="o", label=label)
    for ax, ylabel in ((fps_ax, "best throughput (FPS)"), (lat_ax, "p90 latency of that point (ms)")):
        ax.set_xlabel("batch size")
        ax.set_ylabel(ylabel)
        ax.set_xticks(sorted({b for s in series for b in s.batches}))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"{env.model_name}: where a bigger batch stops paying", fontsize=12)
    return fig


def profile_figure(profile: Profile, model_name: str, top: int = 15) -> Figure:
    """The slowest layers as horizontal bars of their share of layer time, labelled with the kernel that ran."""
    rows = profile.top_layers(top)
    fig = Figure(figsize=(11, 0.42 * len(rows) + 1.8), layout="constrained")
    ax = fig.subplots()
    labels = [f"{layer.name[:40]} ({layer.layer_type})" for layer, _, _ in rows]
    shares = [share * 100 for _, share, _ in rows]
    ax.barh(range(len(rows)), shares, color="#3b7dd8")
    for i, (layer, _, _) in enumerate(rows):
        ax.text(shares[i], i, f"  {layer.exec_type}, {layer.mean_ms:.3f} ms", va="center", fontsize=8)
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("share of all layer time (%)")
    ax.set_xlim(0, max(shares, default=1) * 1.6)
    c = profile.config
    ax.set_title(f"{model_name} on {c.device}, {c.precision.value}, batch {c.batch}, {c.streams}x{c.nireq}: "
                 f"top {len(rows)} layers over {profile.inferences} inferences")
    return fig


def save_profile_figure(profile: Profile, model_name: str, out_dir: Path, top: int = 15) -> Path:
    return save_figure(profile_figure(profile, model_name, top), out_dir, _profile_name(profile))


def _profile_name(profile: Profile) -> str:
    c = profile.config
    return f"profile_{_safe(c.device)}_{c.precision.value}_b{c.batch}_{c.streams}x{c.nireq}"


@dataclass
class WrittenFigures:
    heatmaps: list[Path] = field(default_factory=list)
    precision: list[Path] = field(default_factory=list)
    pareto: Path | None = None
    batch: Path | None = None
    profiles: list[Path] = field(default_factory=list)
    virtual: list[Path] = field(default_factory=list)
    capacity: Path | None = None
    soaks: list[Path] = field(default_factory=list)

    def all(self) -> list[Path]:
        return [*self.heatmaps, *self.precision,
                *[p for p in (self.pareto, self.batch, self.capacity) if p is not None], *self.soaks, *self.virtual,
                *self.profiles]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "-", name)  # GPU.0 -> GPU-0


def save_figure(fig: Figure, out_dir: Path, name: str, fmt: str = "png") -> Path:
    """Write a figure as png, svg or pdf (for reports and documents)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.{fmt}"
    fig.savefig(path, dpi=110)
    return path


def write_figures(results: StoredResults, out_dir: Path, paired_only: bool = False, fmt: str = "png",
                  ) -> WrittenFigures:
    """Every figure the results support, as files of format `fmt` (png, svg, pdf) in `out_dir`."""
    points, env, devices = results.points, results.environment, results.devices
    written = WrittenFigures()

    def save(fig: Figure, name: str) -> Path:
        return save_figure(fig, out_dir, name, fmt)

    for device, precision, batch in heatmap_groups(points):
        fig = heatmap_figure(points, device, precision, batch, env, devices)
        written.heatmaps.append(save(fig, f"heatmap_{_safe(device)}_{precision.value}_b{batch}"))
    for numerator in (Precision.FP16, Precision.BF16):
        for comparison in compare_precisions(points, numerator, confirmations=results.confirmations):
            accuracy = next((a for a in results.accuracies if (a.device, a.precision, a.batch)
                             == (comparison.device, numerator, comparison.batch)), None)
            fig = precision_figure(comparison, env, devices, paired_only, accuracy)
            name = "precision" if numerator is Precision.FP16 else f"precision_{numerator.value}"
            written.precision.append(save(fig, f"{name}_{_safe(comparison.device)}_b{comparison.batch}"))
    if fastest(explicit_points(points)) is not None:
        written.pareto = save(pareto_figure(points, env), "pareto")
    series = batch_series(points)
    if any(len(s.batches) > 1 for s in series) or len(series) > 1:
        written.batch = save(batch_figure(series, env), "batch")
    for info in (d for d in devices.values() if d.members and any(p.config.device == d.name for p in points)):
        written.virtual.append(save(virtual_figure(points, info, env), f"virtual_{_safe(info.name)}"))
    written.profiles = [save(profile_figure(p, env.model_name), _profile_name(p)) for p in results.latest_profiles()]
    if results.capacities:
        written.capacity = save(capacity_figure(results.capacities, env), "capacity")
    written.soaks = [save(soak_figure(soak, env), f"soak_{i}") for i, soak in enumerate(results.soaks, 1)
                     if len(soak.windows) >= 2]
    return written
