"""Edge results for the terminal: capacity trials and tables, soak windows and the drift sentence."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rich.table import Table

from ov_tuner.analyse.capacity import capacity_summary, config_text, latest_served, ms_text
from ov_tuner.analyse.drift import MIN_SIDE, drift
from ov_tuner.schema import CameraTarget, Capacity, LoadTrial, Soak, SoakWindow
from ov_tuner.store.results import StoredResults


def trial_line(trial: LoadTrial, target: CameraTarget) -> str:
    """'4 cameras: 120 frames/s offered, 119.8 completed, p99 35 ms, 0 dropped, 2 late: serves'."""
    verdict = "serves" if trial.serves(target) else "does not serve"
    if trial.disturbed:
        verdict += (f" (other processes used {trial.foreign_cpu or 0:.0%} of the CPUs, the hypervisor "
                    f"{trial.steal or 0:.0%}: a failure then is tried again)")
    return (f"{trial.cameras} cameras: {trial.offered / trial.seconds:.0f} frames/s offered, "
            f"{trial.achieved_fps:.1f} completed, p{target.percentile:g} "
            f"{ms_text(trial.percentile_ms(target.percentile))} (the request itself: median "
            f"{_median(trial):.1f} ms), {trial.dropped} dropped, {trial.late(target.max_latency_ms)} late: {verdict}")


def _median(trial: LoadTrial) -> float:
    return float(np.median(trial.service_ms)) if trial.service_ms.size else float("nan")


def capacity_table(runs: Sequence[Capacity]) -> Table:
    """Per configuration and target: cameras served and the trial that shows it."""
    table = Table(title="Cameras served (latency counted from each frame's arrival)")
    for column in ("configuration", "target", "cameras", "completed frames p50 / p90 / p99 ms", "completed FPS",
                   "dropped", "late", "trials"):
        table.add_column(column, justify="left" if column in ("configuration", "target") else "right")
    for s in latest_served(runs):
        t, trial = s.run.target, s.trial
        table.add_row(
            config_text(s.run.config),
            f"{t.fps:g} FPS, p{t.percentile:g} <= {t.max_latency_ms:g} ms, {t.arrival.value}",
            f"{s.cameras}{'' if s.finished else '+'}" if s.run.searched else f"{s.cameras} (given)",
            _percentiles(trial),
            f"{trial.achieved_fps:.1f}" if trial else "-",
            str(trial.dropped) if trial else "-",
            str(trial.late(t.max_latency_ms)) if trial else "-",
            str(len(s.run.trials)),
        )
    return table


def _percentiles(trial: LoadTrial | None) -> str:
    stats = trial.latency if trial else None
    return f"{stats.median:.1f} / {stats.p90:.1f} / {stats.p99:.1f}" if stats else "-"


def soak_window_line(w: SoakWindow) -> str:
    clock = f", CPU {w.window.cpu_mhz / 1000:.2f} GHz" if w.window.cpu_mhz else ""
    load = f", other processes {w.window.foreign_cpu:.0%}" if w.window.foreign_cpu is not None else ""
    return (f"{w.start_s / 60:5.1f} min: {w.window.fps:.1f} FPS, p99 {w.percentile_ms(99):.1f} ms{clock}{load}")


def soak_lines(soak: Soak) -> list[str]:
    """What the soak found: its length and the drift sentence."""
    found = drift(soak.windows)
    head = (f"soak of {config_text(soak.config)} batch {soak.config.batch}: {len(soak.windows)} windows of "
            f"{soak.window_s:g} s")
    return [head, found.reason if found else f"too few windows to tell drift ({2 * MIN_SIDE} or more are needed)"]


def edge_lines(results: StoredResults) -> list[str]:
    """What `show` says of the file's capacity runs and soaks."""
    summary = capacity_summary(results.capacities)
    return ([summary] if summary else []) + [line for soak in results.soaks for line in soak_lines(soak)]
