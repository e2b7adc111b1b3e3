"""The finer figure of a head-to-head round: at the cameras a split served in the round, the highest frame rate per
camera that still meets the target's percentile, bisected to RATE_PRECISION. Pure, like the camera search.

Why: cameras are whole numbers. On a small host two splits often serve the same count in every round, and a gain in
cameras then reads +0 or +1 with an interval of zero width, which says nothing. The rate each split holds at that
count is a continuous figure, so two splits that serve the same cameras are told apart, or said to be equal with an
interval that comes from measurement, not from rounding.

How: the walk of the round found that `cameras` served at the target's rate and `cameras + 1` did not, so the
highest rate at `cameras` lies near the target's x (cameras + 1) / cameras, the same frames a second as the count
that failed. That is tried first; then, while it serves, the rate's distance above the target's doubles; once a rate
that served lies below one that failed, it bisects until the two lie within RATE_PRECISION.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ov_tuner.schema import CameraTarget, LoadTrial
from ov_tuner.search.cameras import judged
from ov_tuner.workloads.pipeline.schema import PipelineTrial
from ov_tuner.workloads.pipeline.search import next_in_round, round_capacity

# How close the highest rate that served and the lowest that failed must lie, as a share of the one that served.
RATE_PRECISION = 0.02
# The most a camera's rate is tried at, as a multiple of the target's (a split far from its limit stops there).
MOST_RATE = 8.0


def next_rate(tried: Sequence[tuple[float, LoadTrial]], cameras: int, target: CameraTarget) -> float | None:
    """The frame rate per camera to try next at `cameras` cameras, given the rates tried so far in this round (each
    with its trial), or None when the highest rate served is known to RATE_PRECISION."""
    if cameras < 1:
        return None
    outcomes = _outcomes(tried, target)
    again = next((fps for fps, ok in outcomes.items() if ok is None), None)
    if again is not None:
        return again  # set aside on a disturbed host: the same rate again
    low = held_rate(tried, target)
    failed = [fps for fps, ok in outcomes.items() if ok is False and fps > low]
    if failed:
        high = min(failed)
        return None if high - low <= RATE_PRECISION * low else (low + high) / 2
    if low >= MOST_RATE * target.fps:
        return None
    above = 2 * (low - target.fps) if low > target.fps else target.fps / cameras
    return min(target.fps + above, MOST_RATE * target.fps)


def held_rate(tried: Sequence[tuple[float, LoadTrial]], target: CameraTarget) -> float:
    """The highest frame rate per camera that served among `tried` (the target's where none above it did)."""
    return max([target.fps, *(fps for fps, ok in _outcomes(tried, target).items() if ok)])


def _outcomes(tried: Sequence[tuple[float, LoadTrial]], target: CameraTarget) -> dict[float, bool | None]:
    """Per rate tried: whether it served (every trial of it that counts), or None where its only trials were failures
    set aside on a disturbed host (ov_tuner.search.cameras.judged)."""
    by_rate: dict[float, list[LoadTrial]] = {}
    for fps, trial in tried:
        by_rate.setdefault(fps, []).append(trial)
    outcomes: dict[float, bool | None] = {}
    for fps, trials in by_rate.items():
        counted = judged(trials, target)
        outcomes[fps] = all(t.serves(target) for t in counted) if counted else None
    return outcomes


@dataclass(frozen=True)
class RoundHeld:
    """What a contender held in one round: the cameras its walk served and the highest rate per camera at that count
    (the target's where it served none)."""

    cameras: int
    fps: float

    @property
    def arrivals(self) -> float:
        """The frames a second it held in all within the percentile: the round's figure."""
        return self.cameras * self.fps


def round_held(trials: Sequence[PipelineTrial], start: int, target: CameraTarget) -> RoundHeld | None:
    """A contender's result in one round from its trials in it (walked from `start`, what the search found), or None
    until both its walk and its rate search ended."""
    walk = [t.load for t in trials if t.fps is None]
    if not walk or next_in_round(walk, start, target) is not None:
        return None
    cameras = round_capacity(walk, target)
    rates = [(t.fps, t.load) for t in trials if t.fps is not None]
    if next_rate(rates, cameras, target) is not None:
        return None
    return RoundHeld(cameras, held_rate(rates, target))
