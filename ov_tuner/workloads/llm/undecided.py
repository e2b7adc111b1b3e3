"""What more measuring would settle the answer's comparisons that its run left open (ov_tuner.stats.settle), at the
seconds this run's own trials took: a pass of the rounds visits both settings, a walk's window is one trial."""

from __future__ import annotations

from collections.abc import Sequence

from ov_tuner.engine.boundary import BoundaryDifference, rerun_reach
from ov_tuner.stats.headtohead import TIE_MARGIN, Ratio, rerun_floor
from ov_tuner.stats.settle import Settling, settling
from ov_tuner.workloads.llm.measured import LlmTrial
from ov_tuner.workloads.llm.schema import LlmSetting

# The smallest difference in load a walk's comparison is worth settling: one user (an open loop's: 5% of the load).
LEAST_USERS = 1.0


def gain_settling(ratio: Ratio, trials: Sequence[LlmTrial], pair: Sequence[LlmSetting]) -> Settling | None:
    """For a ratio of output tokens/s over the rounds' passes: the passes, of both settings, that would settle a
    difference of what it reads (at least TIE_MARGIN)."""
    seconds = sum(_mean_wall([t for t in trials if t.in_rounds and t.setting == s]) for s in pair)
    return settling(ratio.value, ratio.low, ratio.high, ratio.passes, seconds, TIE_MARGIN, log=True,
                    floor=rerun_floor(ratio.confidence))


def walk_settling(found: BoundaryDifference, served: Sequence[float], trials: Sequence[LlmTrial],
                  pair: Sequence[LlmSetting], closed: bool) -> Settling | None:
    """For a difference of two walks in load served (`served`, each): the windows, of both walks, that would settle
    what it reads (at least a user), beyond what a rerun may move it by."""
    walked = [t for t in trials if t.setting in pair and (t.walked or t.in_rounds)]
    smallest = LEAST_USERS if closed else 0.05 * max((t.walked_at or 0.0 for t in walked), default=1.0)
    return settling(found.value, found.low, found.high, len(walked), _mean_wall(walked), smallest,
                    floor=rerun_reach(*served), linear=True)


def _mean_wall(trials: Sequence[LlmTrial]) -> float:
    return sum(t.wall_s for t in trials) / len(trials) if trials else 0.0
