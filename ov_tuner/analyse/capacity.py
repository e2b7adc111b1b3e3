"""Cameras served, from stored open-loop trials: what each configuration serves and the sentence that says it.
Pure. Also which configurations of a sweep are worth a capacity run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ov_tuner.analyse.points import explicit_points
from ov_tuner.analyse.recommend import recommend
from ov_tuner.errors import OvTunerError
from ov_tuner.schema import Capacity, Confirmation, LoadTrial, Mode, PointConfig, PointResult
from ov_tuner.search.cameras import capacity, next_cameras


@dataclass(frozen=True)
class Served:
    """What one configuration serves against one camera target: `cameras` (the most found by the search, or the
    count given), the trial that shows it (the last that served at that count, else the last run) and whether the
    search had finished (a Ctrl-C can end it early: then `cameras` is a lower bound)."""

    run: Capacity
    cameras: int
    trial: LoadTrial | None
    finished: bool

    @property
    def serves(self) -> bool:
        return self.trial is not None and self.trial.serves(self.run.target)

    def latency_text(self) -> str:
        t = self.run.target
        if self.trial is None:
            return "no trial"
        return f"p{t.percentile:g} {ms_text(self.trial.percentile_ms(t.percentile))}"

    @property
    def reason(self) -> str:
        run, t = self.run, self.run.target
        head = config_text(run.config)
        if not run.searched:
            if self.trial is None:
                return f"{head}: not measured"
            verdict = "serves them" if self.serves else "does not serve them"
            return (f"{head} with {self.trial.cameras} cameras at {t.fps:g} FPS: {self.latency_text()}, "
                    f"{self.trial.achieved_fps:.1f} FPS completed, {self.trial.dropped} dropped, "
                    f"{self.trial.late(t.max_latency_ms)} late: {verdict}")
        if self.cameras == 0:
            return f"{head} serves no camera at {t.fps:g} FPS within {_budget(run)}"
        bound = "" if self.finished else " at least (the search was stopped)"
        return (f"{head} serves {self.cameras} cameras{bound} at {t.fps:g} FPS with {self.latency_text()} "
                f"(within {_budget(run)})")


def _budget(run: Capacity) -> str:
    return f"p{run.target.percentile:g} <= {run.target.max_latency_ms:g} ms, a dropped frame counting as late"


def ms_text(ms: float) -> str:
    """'41 ms', or what an infinite percentile means: too many frames were dropped."""
    return f"{ms:.0f} ms" if math.isfinite(ms) else "not reached (too many frames dropped)"


def config_text(c: PointConfig) -> str:
    """'CPU fp32 2 streams x 4 requests': a batch-1 configuration as a sentence names it."""
    if c.mode is Mode.EXPLICIT:
        return f"{c.scope} {c.precision.value} {c.streams} streams x {c.nireq} requests"
    return f"{c.scope} {c.precision.value} {c.mode.hint_name} x {c.nireq} requests"


def served(run: Capacity) -> Served:
    if not run.searched:
        return Served(run, run.trials[-1].cameras if run.trials else 0, run.trials[-1] if run.trials else None, True)
    cameras = capacity(run.trials, run.target)
    at = [t for t in run.trials if t.cameras == cameras and t.serves(run.target)]
    trial = at[-1] if at else (run.trials[-1] if run.trials else None)
    return Served(run, cameras, trial, next_cameras(run.trials, run.target) is None)


def latest_served(runs: Sequence[Capacity]) -> list[Served]:
    """The latest run of each configuration and target, most cameras first."""
    latest = {(r.config, r.target, r.searched): r for r in runs}
    return sorted((served(r) for r in latest.values()), key=lambda s: -s.cameras)


def capacity_summary(runs: Sequence[Capacity]) -> str | None:
    """The camera searches in one sentence, most cameras first: "CPU fp32 2 streams x 4 requests serves 11 cameras
    at 30 FPS with p99 41 ms (within ...); 1 x 2 serves 6"."""
    searched = [s for s in latest_served(runs) if s.run.searched]
    if not searched:
        return None
    first, *rest = searched
    return "; ".join([first.reason, *(f"{_short(s.run.config, first.run.config)} serves {s.cameras}" for s in rest)])


def _short(c: PointConfig, first: PointConfig) -> str:
    """'1 x 2' beside a first configuration of the same device and precision; the whole name otherwise."""
    if (c.scope, c.precision) != (first.scope, first.precision):
        return config_text(c)
    return f"{c.streams} x {c.nireq}" if c.mode is Mode.EXPLICIT else f"{c.mode.hint_name} x {c.nireq}"


def capacity_candidates(points: list[PointResult], confirmations: Sequence[Confirmation], top: int,
                        ) -> list[PointConfig]:
    """The batch-1 configurations a sweep found fastest: the recommended one first, then by FPS, `top` in all."""
    pool = [p for p in explicit_points(points) if p.config.batch == 1]
    ranked = sorted(pool, key=lambda p: -p.fps)
    try:
        first = [recommend(pool, confirmations=confirmations).winner] if pool else []
    except OvTunerError:
        first = []
    configs = list(dict.fromkeys(p.config for p in first + ranked))
    return configs[:top]
