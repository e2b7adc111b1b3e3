"""Cameras served, from stored open-loop trials: what each configuration serves. Pure. Also which configurations of a
sweep are worth a capacity run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ov_tuner.analyse.accuracy import Breach, accuracy_key
from ov_tuner.analyse.points import explicit_points
from ov_tuner.analyse.recommend import recommend
from ov_tuner.engine.cameras import camera_boundary, next_cameras
from ov_tuner.errors import OvTunerError
from ov_tuner.schema import HARNESS_LIMIT, Capacity, Confirmation, LoadTrial, PointConfig, PointResult, Precision


@dataclass(frozen=True)
class Served:
    """What one configuration serves against one camera target: `cameras` (the most found by the search, or the
    count given) with its 95% interval `low`..`high` (ov_tuner.engine.boundary; the count itself where it was given),
    the trial that shows it (the last that served at that count, else the last run) and whether the search had
    finished (a Ctrl-C can end it early: then `cameras` is a lower bound)."""

    run: Capacity
    cameras: int
    trial: LoadTrial | None
    finished: bool
    low: int = 0
    high: int = 0

    @property
    def serves(self) -> bool:
        return self.trial is not None and self.trial.serves(self.run.target)

    @property
    def frames_per_s(self) -> float:
        """The frames a second the cameras served offer."""
        return self.cameras * self.run.target.fps

    @property
    def harness_share(self) -> float | None:
        """The frames a second served over what ov-tuner's open loop carries with the device's work made trivial
        (None where that was not measured)."""
        carried = self.run.harness
        return None if carried is None or not carried.frames_per_s else self.frames_per_s / carried.frames_per_s

    @property
    def harness_limited(self) -> bool:
        """Served within HARNESS_LIMIT of a ceiling the harness reached: ov-tuner, not the device, may have set it."""
        share = self.harness_share
        return share is not None and self.run.harness is not None and self.run.harness.reached and \
            share >= HARNESS_LIMIT


def served(run: Capacity) -> Served:
    if not run.searched:
        given = run.trials[-1].cameras if run.trials else 0
        return Served(run, given, run.trials[-1] if run.trials else None, True, given, given)
    found = camera_boundary(run.trials, run.target)
    cameras = int(found.served)
    at = [t for t in run.trials if t.cameras == cameras and t.serves(run.target)]
    trial = at[-1] if at else (run.trials[-1] if run.trials else None)
    return Served(run, cameras, trial, next_cameras(run.trials, run.target) is None, int(found.low), int(found.high))


def latest_served(runs: Sequence[Capacity]) -> list[Served]:
    """The latest run of each configuration and target, most cameras first."""
    latest = {(r.config, r.target, r.searched): r for r in runs}
    return sorted((served(r) for r in latest.values()), key=lambda s: -s.cameras)


def capacity_candidates(points: list[PointResult], confirmations: Sequence[Confirmation], top: int,
                        excluded: Mapping[tuple[str, Precision, int], Breach] | None = None) -> list[PointConfig]:
    """The batch-1 configurations a sweep found fastest, less those the accuracy limit holds back (`excluded`): the
    recommended one first, then by FPS, `top` in all."""
    excluded = excluded or {}
    pool = [p for p in explicit_points(points) if p.config.batch == 1
            and accuracy_key(p) not in excluded]
    ranked = sorted(pool, key=lambda p: -p.fps)
    try:
        first = [recommend(pool, confirmations=confirmations).winner] if pool else []
    except OvTunerError:
        first = []
    configs = list(dict.fromkeys(p.config for p in first + ranked))
    return configs[:top]
