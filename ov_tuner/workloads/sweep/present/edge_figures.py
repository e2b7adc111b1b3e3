"""Edge figures: cameras served per configuration, and a soak's FPS, p99 and CPU clock against time."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from ov_tuner.analyse.capacity import Served
from ov_tuner.analyse.drift import SoakDrift
from ov_tuner.schema import Environment
from ov_tuner.workloads.sweep.present.words.edge import drift_text, latency_text


def capacity_figure(served: Sequence[Served], env: Environment) -> Figure:
    """One bar per configuration and camera target (`served`: the latest run of each, most cameras first): the most
    cameras it served (or, for a given count, the cameras it was given, hatched where it did not serve them), with
    the latency that shows it."""
    fig = Figure(figsize=(max(7.0, 1.3 * len(served) + 3), 4.8), layout="constrained")
    ax = fig.subplots()
    for i, s in enumerate(served):
        bar = ax.bar(i, s.cameras, color="tab:green" if s.serves else "tab:red",
                     hatch=None if s.serves else "//", alpha=0.85)
        ax.bar_label(bar, [f"{s.cameras}\n{latency_text(s)}"], fontsize=8)
    ax.set_xticks(range(len(served)),
                  [f"{s.run.config.label()}\n{s.run.target.fps:g} FPS/camera, "
                   f"p{s.run.target.percentile:g} <= {s.run.target.max_latency_ms:g} ms" for s in served],
                  rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("cameras served")
    ax.set_ylim(0, max([s.cameras for s in served] + [1]) * 1.25)
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(f"{env.model_name} on {env.host}: cameras served (red, hatched: not served)", wrap=True)
    return fig


def soak_figure(found: SoakDrift, env: Environment) -> Figure:
    """FPS, p99 latency and the CPU clock per window against minutes, with the step the drift analysis found."""
    soak = found.soak
    minutes = [w.start_s / 60 for w in soak.windows]
    fig = Figure(figsize=(10, 7), layout="constrained")
    fps_ax, p99_ax, clock_ax = fig.subplots(3, 1, sharex=True)
    fps_ax.plot(minutes, [w.window.fps for w in soak.windows], marker=".", color="tab:blue")
    fps_ax.set_ylabel("FPS")
    p99_ax.plot(minutes, [w.percentile_ms(99) for w in soak.windows], marker=".", color="tab:orange")
    p99_ax.set_ylabel("p99 latency (ms)")
    clocks = [(m, w.window.cpu_mhz) for m, w in zip(minutes, soak.windows, strict=True) if w.window.cpu_mhz]
    clock_ax.plot([m for m, _ in clocks], [c / 1000 for _, c in clocks], marker=".", color="tab:gray",
                  label="CPU clock (GHz)")
    load_ax = clock_ax.twinx()
    load_ax.plot(minutes, [100 * (w.window.foreign_cpu or 0) for w in soak.windows], color="tab:red", alpha=0.6,
                 label="other processes (% of CPUs)")
    clock_ax.set_ylabel("CPU clock (GHz)")
    load_ax.set_ylabel("other processes (%)")
    clock_ax.set_xlabel("minutes")
    step = found.drift
    if step is not None and step.drifted:
        for ax in (fps_ax, p99_ax, clock_ax):
            ax.axvline(step.at_s / 60, color="black", linestyle="--", alpha=0.6)
    for ax in (fps_ax, p99_ax, clock_ax):
        ax.grid(alpha=0.3)
    c = soak.config
    fig.suptitle(f"{env.model_name} on {env.host}: soak of {c.label()}\n"
                 f"{drift_text(step) if step else 'too few windows to tell drift'}", fontsize=9, wrap=True)
    return fig
