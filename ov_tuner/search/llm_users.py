"""The walk to the most concurrent users a setting serves within the latency budget: from the load's users, doubling
while each count meets the budget, then bisecting between the highest count that met it and the lowest that did not,
until they lie within USERS_PRECISION of each other (or one user apart). Pure: the driver measures a count through its
trial and says whether it met the budget.

One trial a count, no repeats: the walk is a capacity figure stated beside the answer, not what chose it (the rounds
side by side did), and a count near the edge can land either side on a rerun; the words say it is one walk.
"""

from __future__ import annotations

from collections.abc import Mapping

# The most users a walk tries (a setting that meets the budget there is said to serve at least as many).
MOST_USERS = 256
# How close the highest count that met the budget and the lowest that did not must lie, as a share of the first:
# finer than one trial a count can tell on a shared host.
USERS_PRECISION = 0.05


def next_users(met: Mapping[int, bool], start: int, most: int = MOST_USERS) -> int | None:
    """The count of users to try next given the counts tried (whether each met the budget), or None when the walk
    is done."""
    if not met:
        return min(start, most)
    served = max((n for n, ok in met.items() if ok), default=0)
    failed = min((n for n, ok in met.items() if not ok and n > served), default=None)
    if failed is None:
        return None if served >= most else min(2 * served, most)
    if failed - served <= max(1.0, USERS_PRECISION * served):
        return None
    return (served + failed) // 2 if served else (failed // 2 or None)


def users_served(met: Mapping[int, bool]) -> int:
    """The most users that met the budget with no count below it failing: 0 where none did."""
    failed = min((n for n, ok in met.items() if not ok), default=None)
    return max((n for n, ok in met.items() if ok and (failed is None or n < failed)), default=0)
