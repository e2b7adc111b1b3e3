"""The walk to the most load a setting serves within the latency budget: concurrent users (a closed loop, whole
numbers) or requests a second (an open loop). From the load given, doubling while each load meets the budget, then
bisecting between the highest that met it and the lowest that did not until they lie within WALK_PRECISION of each
other (or one user apart); where even the load given fails, halving. Pure: the driver measures a load through its
trial and says whether it met the budget.

One trial a load, no repeats: the walk is a capacity figure stated beside the answer, and a load near the edge can
land either side on a rerun; the words say it is one walk.
"""

from __future__ import annotations

from collections.abc import Mapping

# The most users a walk tries (a setting that meets the budget there is said to serve at least as many).
MOST_USERS = 256
# The most requests a second an open loop's walk tries, as a multiple of the rate given.
MOST_RATE_FACTOR = 64
# How close the highest load that met the budget and the lowest that did not must lie, as a share of the first:
# finer than one trial a load can tell on a shared host.
WALK_PRECISION = 0.05


def next_load(met: Mapping[float, bool], start: float, most: float, whole: bool) -> float | None:
    """The load to try next given the loads tried (whether each met the budget), or None when the walk is done;
    `whole`: users, tried as whole numbers."""
    if not met:
        return min(start, most)
    served = max((n for n, ok in met.items() if ok), default=0.0)
    failed = min((n for n, ok in met.items() if not ok and n > served), default=None)
    if failed is None:
        return None if served >= most else min(2 * served, most)
    if failed - served <= max(1.0 if whole else 0.0, WALK_PRECISION * served):
        return None
    if not served:  # nothing met yet: halve, down to one user or a 64th of the rate given
        low = failed / 2
        return (float(int(low)) or None) if whole else (low if low >= start / MOST_RATE_FACTOR else None)
    middle = (served + failed) / 2
    return float(int(middle)) if whole else middle


def load_served(met: Mapping[float, bool]) -> float:
    """The most load that met the budget with no load below it failing: 0 where none did."""
    failed = min((n for n, ok in met.items() if not ok), default=None)
    return max((n for n, ok in met.items() if ok and (failed is None or n < failed)), default=0.0)
