"""The camera search: the most cameras a configuration serves, on the one capacity walk (ov_tuner.engine.boundary):
doubling, then bisection, then the two counts at the edge measured again until no single trial sets the figure.
Pure: it reads trials and names the next camera count, so a test can drive it on made-up trials.

A trial that failed while other processes or the hypervisor took the CPUs (LoadTrial.disturbed) measured the host as
much as the configuration: it is set aside and the same count tried again, up to DISTURBED_RETRIES times, after which
the failures count (the host is what it is).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ov_tuner.engine.boundary import Boundary, Growth, WalkRule, Window, boundary, figure, next_load
from ov_tuner.schema import CameraTarget, LoadTrial

# No configuration is tried with more cameras than this: a model so light that it serves more is not what the
# camera search is for.
MAX_CAMERAS = 4096
# How many failures of one count measured on a disturbed host are set aside.
DISTURBED_RETRIES = 2
# The capacity command's walk: from one camera, doubling, each edge measured as the one walk measures it.
CAPACITY_WALK = WalkRule(start=1, most=MAX_CAMERAS)
# The pipeline search's starting points: each edge twice and no more, since the rounds side by side set the
# headline; a neighbour of the best split grows one camera at a time from where it was first tried.
SEARCH_WALK = WalkRule(start=1, most=MAX_CAMERAS, repeats=2, most_repeats=2)
NEIGHBOUR_WALK = WalkRule(start=1, most=MAX_CAMERAS, growth=Growth.ONE_STEP, repeats=2, most_repeats=2)


def judged(trials: Sequence[LoadTrial], target: CameraTarget) -> list[LoadTrial]:
    """The trials the answer stands on: all but the disturbed failures that are set aside."""
    return [t for _, t in judged_at([(t.cameras, t) for t in trials], target)]


def judged_at(tried: Sequence[tuple[float, LoadTrial]], target: CameraTarget) -> list[tuple[float, LoadTrial]]:
    """`judged` for trials each at a load of its own (a camera count, or a frame rate at one count)."""
    disturbed = Counter(x for x, t in tried if t.disturbed and not t.serves(target))
    return [(x, t) for x, t in tried if not t.disturbed or t.serves(target) or disturbed[x] > DISTURBED_RETRIES]


def next_at(tried: Sequence[tuple[float, LoadTrial]], target: CameraTarget, rule: WalkRule,
            known: Sequence[Window] = ()) -> float | None:
    """The load to try next on the walk `rule` from the trials at their loads (`known`: windows the walk stands on
    that were measured before it), or None when the walk is done; a failure set aside is tried again first."""
    counted = judged_at(tried, target)
    if tried and not any(t is tried[-1][1] for _, t in counted):
        return tried[-1][0]  # set aside: the host was busy
    return next_load([*known, *((float(x), t.serves(target)) for x, t in counted)], rule)


def windows(trials: Sequence[LoadTrial], target: CameraTarget) -> list[Window]:
    """The walk's windows: each trial that counts, with whether it served."""
    return [(float(t.cameras), t.serves(target)) for t in judged(trials, target)]


def served(trials: Sequence[LoadTrial], target: CameraTarget) -> dict[int, bool]:
    """Per camera count tried: whether more than half of its trials that count served."""
    tally: dict[int, list[bool]] = {}
    for t in judged(trials, target):
        tally.setdefault(t.cameras, []).append(t.serves(target))
    return {k: 2 * sum(oks) > len(oks) for k, oks in tally.items()}


def camera_boundary(trials: Sequence[LoadTrial], target: CameraTarget) -> Boundary:
    """The cameras served with their interval (ov_tuner.engine.boundary)."""
    return boundary(windows(trials, target))


def capacity(trials: Sequence[LoadTrial], target: CameraTarget) -> int:
    """The most cameras served (0 when not even one camera was)."""
    return int(figure(windows(trials, target)))


def next_cameras(trials: Sequence[LoadTrial], target: CameraTarget, rule: WalkRule = CAPACITY_WALK) -> int | None:
    """The camera count to try next, or None when the capacity is known to the `rule`'s width."""
    found = next_at([(t.cameras, t) for t in trials], target, rule)
    return None if found is None else int(found)
