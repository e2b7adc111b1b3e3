"""The camera search: the most cameras a configuration serves, found by doubling, then bisection, then the answer
measured once more. Pure: it reads trials and names the next camera count, so a test can drive it on made-up
trials.

Why the second look: a trial at the edge of the capacity passes or fails by noise. The count claimed is one
that served twice; if it fails the second time, the search steps down and confirms the next count that served.
A trial that failed while other processes or the hypervisor took the CPUs (LoadTrial.disturbed) measured the
host as much as the configuration: it is set aside and the same count tried again, up to DISTURBED_RETRIES
times, after which the failures count (the host is what it is).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ov_tuner.schema import CameraTarget, LoadTrial

# No configuration is tried with more cameras than this: a model so light that it serves more is not what the
# camera search is for.
MAX_CAMERAS = 4096
# How often the count claimed must have served.
CONFIRMATIONS = 2
# How many failures of one count measured on a disturbed host are set aside.
DISTURBED_RETRIES = 2


def judged(trials: Sequence[LoadTrial], target: CameraTarget) -> list[LoadTrial]:
    """The trials the answer stands on: all but the disturbed failures that are set aside."""
    disturbed = Counter(t.cameras for t in trials if t.disturbed and not t.serves(target))
    return [t for t in trials
            if not t.disturbed or t.serves(target) or disturbed[t.cameras] > DISTURBED_RETRIES]


def served(trials: Sequence[LoadTrial], target: CameraTarget) -> dict[int, bool]:
    """Per camera count tried: whether every trial of it that counts served."""
    result: dict[int, bool] = {}
    for t in judged(trials, target):
        result[t.cameras] = result.get(t.cameras, True) and t.serves(target)
    return result


def capacity(trials: Sequence[LoadTrial], target: CameraTarget) -> int:
    """The most cameras served below the fewest that failed (0 when one camera failed)."""
    outcome = served(trials, target)
    failed = min((k for k, ok in outcome.items() if not ok), default=MAX_CAMERAS + 1)
    return max((k for k, ok in outcome.items() if ok and k < failed), default=0)


def next_cameras(trials: Sequence[LoadTrial], target: CameraTarget, doubling: bool = True) -> int | None:
    """The camera count to try next, or None when the capacity is known. Without `doubling`, counts that served
    grow by one: for a search that starts where the answer is expected to be (a neighbour of the best split)."""
    if not trials:
        return 1
    counted = judged(trials, target)
    if not any(t is trials[-1] for t in counted):
        return trials[-1].cameras  # set aside: the host was busy
    outcome = served(trials, target)
    failed = min((k for k, ok in outcome.items() if not ok), default=None)
    best = capacity(trials, target)
    if failed is None:
        if max(outcome) >= MAX_CAMERAS:
            return _confirm(counted, best)
        return min(2 * max(outcome) if doubling else max(outcome) + 1, MAX_CAMERAS)
    if failed - best > 1:
        return (best + failed) // 2
    return _confirm(counted, best)


def _confirm(trials: Sequence[LoadTrial], best: int) -> int | None:
    if best == 0 or sum(t.cameras == best for t in trials) >= CONFIRMATIONS:
        return None
    return best
