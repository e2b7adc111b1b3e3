"""The finer figure of a pass of the head-to-head rounds: at the cameras a split served in the pass, the highest frame
rate per camera that still meets the target's percentile, bisected to RATE_PRECISION. Pure, like the camera search.

Why: cameras are whole numbers. On a small host two splits often serve the same count in every pass, and a gain in
cameras then reads +0 or +1 with an interval of zero width, which says nothing. The rate each split holds at that
count is a continuous figure, so two splits that serve the same cameras are told apart, or said to be equal with an
interval that comes from measurement, not from rounding.

How: the one capacity walk (ov_tuner.engine.boundary), over frame rates at a fixed count. It stands on what the pass's
camera walk found, that `cameras` served at the target's rate; it steps past that rate by steps that double, the
first the target's x (cameras + 1) / cameras (the same frames a second as the count that failed), up to MOST_RATE
times the target's, then bisects until the highest rate that served and the lowest that failed lie within
RATE_PRECISION. One window a rate, as in the pass's camera walk: the passes repeat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ov_tuner.engine.boundary import Growth, WalkRule, figure
from ov_tuner.engine.cameras import judged_at, next_at
from ov_tuner.schema import CameraTarget, LoadTrial
from ov_tuner.workloads.pipeline.schema import PipelineTrial
from ov_tuner.workloads.pipeline.search import next_in_pass, pass_capacity

# How close the highest rate that served and the lowest that failed must lie, as a share of the one that served. The
# rate a split holds moves 10-20% between passes (the demo's default split held 17.2 FPS a camera, 95%: 12.9..23.1,
# over 3 passes), so bisecting one pass's to 2% bought nothing and cost two windows a contender a pass.
RATE_PRECISION = 0.05
# The most a camera's rate is tried at, as a multiple of the target's (a split far from its limit stops there).
MOST_RATE = 8.0


def next_rate(tried: Sequence[tuple[float, LoadTrial]], cameras: int, target: CameraTarget) -> float | None:
    """The frame rate per camera to try next at `cameras` cameras, given the rates tried so far in this pass (each
    with its trial), or None when the highest rate served is known to RATE_PRECISION."""
    if cameras < 1:
        return None
    return next_at(tried, target, rate_walk(cameras, target), known=[(target.fps, True)])


def rate_walk(cameras: int, target: CameraTarget) -> WalkRule:
    """The walk over rates at `cameras` cameras (see the module's docstring)."""
    return WalkRule(start=target.fps, most=MOST_RATE * target.fps, whole=False, least=target.fps,
                    growth=Growth.WIDENING, step=target.fps / cameras, precision=RATE_PRECISION, repeats=1,
                    most_repeats=1)


def held_rate(tried: Sequence[tuple[float, LoadTrial]], target: CameraTarget) -> float:
    """The highest frame rate per camera that served among `tried` (the target's where none above it did)."""
    counted = [(float(x), t.serves(target)) for x, t in judged_at(tried, target)]
    return max(figure([(target.fps, True), *counted]), target.fps)


@dataclass(frozen=True)
class PassHeld:
    """What a contender held in one pass: the cameras its walk served and the highest rate per camera at that count
    (the target's where it served none)."""

    cameras: int
    fps: float

    @property
    def arrivals(self) -> float:
        """The frames a second it held in all within the percentile: the pass's figure."""
        return self.cameras * self.fps


def pass_held(trials: Sequence[PipelineTrial], start: int, target: CameraTarget) -> PassHeld | None:
    """A contender's result in one pass from its trials in it (walked from `start`, what the search found), or None
    until both its walk and its rate search ended."""
    walk = [t.load for t in trials if t.fps is None]
    if not walk or next_in_pass(walk, start, target) is not None:
        return None
    cameras = pass_capacity(walk, target)
    rates = [(t.fps, t.load) for t in trials if t.fps is not None]
    if next_rate(rates, cameras, target) is not None:
        return None
    return PassHeld(cameras, held_rate(rates, target))
