"""The walk to the most load a setting serves within the latency budget: concurrent users (a closed loop, whole
numbers) or requests a second (an open loop), on the one capacity walk (ov_tuner.engine.boundary): from the load given,
doubling while loads meet the budget, bisecting to WALK_PRECISION, the two loads at the edge measured again until no
single window sets the figure, halving where even the load given fails. The rounds' trials ran the load given, so
they are the walk's windows there (ov_tuner.workloads.llm.answer.walk_windows): it starts above it.
"""

from __future__ import annotations

from ov_tuner.engine.boundary import WalkRule

# The most users a walk tries (a setting that meets the budget there is said to serve at least as many).
MOST_USERS = 256
# The most requests a second an open loop's walk tries, as a multiple of the rate given; also the least, as a share.
MOST_RATE_FACTOR = 64
# How close the highest load that met the budget and the lowest that did not must lie, as a share of the first.
WALK_PRECISION = 0.05
# The most windows a walk repeats (the engine's default is 8): each of an LLM's windows lasts a request's length at
# the budget's TPOT beyond its seconds, and on the twelve walks of four demo runs (SmolLM2, 2 cores) stopping at 6
# gave the same figure and interval in ten and in two moved the figure by one user, two windows a walk sooner.
MOST_REPEATED = 6
# The windows a walk takes, for a plan (not a limit): a doubling or two, a bisection or two, and its edge repeated.
WALK_WINDOWS = 10


def walk_rule(start: float, most: float, closed: bool) -> WalkRule:
    """The walk from `start` users (`closed`) or requests a second, up to `most`."""
    least = 1.0 if closed else start / MOST_RATE_FACTOR
    return WalkRule(start=start, most=most, whole=closed, least=least, precision=WALK_PRECISION,
                    most_repeated=MOST_REPEATED)
