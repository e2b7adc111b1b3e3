"""Figures built as matplotlib Figure objects (no pyplot global state), saved with the Agg backend."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ov_tuner.analyse.compare import Comparison
from ov_tuner.analyse.figures import ParetoData, PlotData, VirtualData
from ov_tuner.analyse.heatmaps import FigureMarks
from ov_tuner.analyse.points import BatchSeries
from ov_tuner.present.drawing import DEPLOYED_COLOUR, save_figure
from ov_tuner.present.words.marks import NO_ANSWER, default_point_text, deployed_point_text
from ov_tuner.schema import Environment, PointResult, Precision, Profile, cell_text
from ov_tuner.workloads.sweep.present.edge_figures import capacity_figure, soak_figure
from ov_tuner.workloads.sweep.present.figure_files import WrittenFigures
from ov_tuner.workloads.sweep.present.heatmaps import heatmap_figure, precision_figure
from ov_tuner.workloads.sweep.present.words.findings import matched_label, short_label
from ov_tuner.workloads.sweep.present.words.short import configuration_text

Panel = tuple[Axes, Callable[[PointResult], float], Callable[[PointResult], float]]  # an axes, its x and its y


def _mark_points(marks: FigureMarks, *panels: Panel) -> list[Line2D]:
    """The deployed point ringed and OpenVINO default's framed in a diamond on each panel: the legend entries that
    name them."""
    deployed, default = marks.deployed, marks.default
    ring = {"marker": "o", "markersize": 17, "markerfacecolor": "none", "markeredgecolor": DEPLOYED_COLOUR,
            "markeredgewidth": 2.5, "linestyle": ""}
    diamond = {"marker": "D", "markersize": 12, "markerfacecolor": "none", "markeredgecolor": "black",
               "markeredgewidth": 2, "linestyle": ""}
    for ax, x, y in panels:
        for p, style in ((deployed, ring), (default, diamond)):
            if p is not None:
                ax.plot([x(p)], [y(p)], zorder=5, **style)  # type: ignore[arg-type]
    handles = [Line2D([], [], label=deployed_point_text(deployed), **ring) if deployed is not None  # type: ignore[arg-type]
               else Line2D([], [], linestyle="", label=NO_ANSWER)]
    if default is not None:
        handles.append(Line2D([], [], label=default_point_text(default), **diamond))  # type: ignore[arg-type]
    return handles


def pareto_figure(data: ParetoData, env: Environment, marks: FigureMarks | None = None) -> Figure:
    """Throughput against latency for every measured point; the Pareto front joined and labelled; the deployed
    point and OpenVINO default's (`marks`) named in the legend."""
    fig = Figure(figsize=(10, 6.5), layout="constrained")
    ax = fig.subplots()
    measured, front, percentile = data.points, data.front, data.percentile
    series = sorted({(p.config.device, p.config.precision, p.config.batch) for p in measured})
    palette = colormaps["tab10"]
    for i, (device, precision, batch) in enumerate(series):
        members = [p for p in measured if p.config.heatmap_key == (device, precision, batch)]
        explicit = [p for p in members if p.config.explicit]
        hints = [p for p in members if not p.config.explicit]
        colour = palette(i % 10)
        ax.scatter([p.latency_ms(percentile) for p in explicit], [p.fps for p in explicit], color=colour, s=36,
                   alpha=0.7, label=f"{device} {precision.value} batch {batch}")
        ax.scatter([p.latency_ms(percentile) for p in hints], [p.fps for p in hints], color=colour, marker="^", s=70,
                   edgecolor="black")
    ax.plot([p.latency_ms(percentile) for p in front], [p.fps for p in front], color="black", linewidth=1.5,
            zorder=0)
    on_front = {id(p) for p in front}
    for p in measured:  # every point says its configuration; the front ones say it in full
        full = id(p) in on_front
        text = configuration_text(p) if full else short_label(p)
        ax.annotate(text, (p.latency_ms(percentile), p.fps), textcoords="offset points", xytext=(5, 3),
                    fontsize=8 if full else 6, color="black" if full else "#666666")
    name = "median" if percentile == 50 else f"p{percentile}"
    ax.set_xlabel(f"{name} latency per request (ms)")
    ax.set_ylabel("throughput (FPS)")
    ax.grid(alpha=0.3)
    handles, _ = ax.get_legend_handles_labels()
    if marks is not None:
        handles = [*_mark_points(marks, (ax, lambda p: p.latency_ms(percentile), lambda p: p.fps)), *handles]
    handles += [Line2D([], [], color="black", label="Pareto front"),
                Line2D([], [], marker="^", linestyle="", color="grey", markeredgecolor="black",
                       label="OpenVINO performance-hint baseline")]
    ax.legend(handles=handles, fontsize=8, loc="lower right")
    ax.set_title(f"{env.model_name}: throughput vs {name} latency (up and left is better)", wrap=True)
    return fig


def virtual_figure(data: VirtualData, env: Environment) -> Figure:
    """A virtual device's FPS against requests in flight, one line per hint and precision, with the best of each of
    its members alone as a dashed line."""
    fig = Figure(figsize=(10, 5.5), layout="constrained")
    ax = fig.subplots()
    measured, device = data.points, data.device
    for mode, precision in sorted({(p.config.mode.value, p.config.precision.value) for p in measured}):
        line = sorted((p for p in measured if (p.config.mode.value, p.config.precision.value) == (mode, precision)),
                      key=lambda p: p.config.nireq)
        ax.plot([p.config.nireq for p in line], [p.fps for p in line], marker="o", label=f"{mode} {precision}")
    for member, alone in data.alone:
        ax.axhline(alone.fps, linestyle="--", color="grey")
        ax.annotate(f"{member} alone, tuned ({short_label(alone)}): {alone.fps:.0f} FPS", (0.01, alone.fps),
                    xycoords=("axes fraction", "data"), fontsize=8, va="bottom")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("infer requests in flight (nireq)")
    ax.set_ylabel("throughput (FPS)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(f"{env.model_name} on {device.name}: each hint against its members tuned alone", wrap=True)
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
    ax.set_title(f"{comparison.files[0].environment.model_name}: the same configurations in each file", wrap=True)
    return fig


def batch_figure(series: Sequence[BatchSeries], env: Environment, marks: FigureMarks | None = None) -> Figure:
    """Best FPS and its p90 latency against batch size, one line per device and precision; the deployed point and
    OpenVINO default's (`marks`) ringed and named below."""
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
    if marks is not None:
        handles = _mark_points(marks, (fps_ax, lambda p: p.config.batch, lambda p: p.fps),
                               (lat_ax, lambda p: p.config.batch, lambda p: p.latency_ms(90)))
        fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8, frameon=False)
    fig.suptitle(f"{env.model_name}: where a bigger batch stops paying", fontsize=12, wrap=True)
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
    ax.set_title(f"{model_name} on {c.device}, {c.precision.value}, batch {c.batch}, {cell_text(c.streams, c.nireq)}: "
                 f"top {len(rows)} layers over {profile.inferences} inferences", wrap=True)
    return fig


def save_profile_figure(profile: Profile, model_name: str, out_dir: Path, top: int = 15) -> Path:
    return save_figure(profile_figure(profile, model_name, top), out_dir, _profile_name(profile))


def _profile_name(profile: Profile) -> str:
    c = profile.config
    return f"profile_{_safe(c.device)}_{c.precision.value}_b{c.batch}_{c.streams}x{c.nireq}"


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "-", name)  # GPU.0 -> GPU-0


def write_figures(data: PlotData, out_dir: Path, paired_only: bool = False, fmt: str = "png") -> WrittenFigures:
    """Every figure of `data` (analyse.figures.plot_data: what the results support, marked with what the answer
    deploys and OpenVINO default) as files of format `fmt` (png, svg, pdf) in `out_dir`."""
    env, devices, marks = data.environment, data.devices, data.marks
    written = WrittenFigures()

    def save(fig: Figure, name: str) -> Path:
        return save_figure(fig, out_dir, name, fmt)

    for heatmap in data.heatmaps:
        written.heatmaps.append(save(heatmap_figure(heatmap, env, devices),
                                     f"heatmap_{_safe(heatmap.device)}_{heatmap.precision.value}_b{heatmap.batch}"))
    for precision in data.precisions:
        comparison = precision.comparison
        numerator, denominator = comparison.numerator, comparison.denominator
        fig = precision_figure(precision, env, devices, paired_only, data.quantization)
        name = "precision" if numerator is Precision.FP16 else f"precision_{numerator.value}"
        name += "" if denominator is Precision.FP32 else f"_over_{denominator.value}"
        written.precision.append(save(fig, f"{name}_{_safe(comparison.device)}_b{comparison.batch}"))
    if data.pareto is not None:
        written.pareto = save(pareto_figure(data.pareto, env, marks), "pareto")
    if data.batch:
        written.batch = save(batch_figure(data.batch, env, marks), "batch")
    for virtual in data.virtual:
        written.virtual.append(save(virtual_figure(virtual, env), f"virtual_{_safe(virtual.device.name)}"))
    written.profiles = [save(profile_figure(p, env.model_name), _profile_name(p)) for p in data.profiles]
    if data.served:
        written.capacity = save(capacity_figure(data.served, env), "capacity")
    written.soaks = [save(soak_figure(soak, env), f"soak_{i}") for i, soak in enumerate(data.soaks, 1)
                     if len(soak.soak.windows) >= 2]
    return written
