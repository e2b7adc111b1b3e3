"""The LLM answer's objective, rung by rung: the walks to the most load each setting serves within the budget, read
against one another."""

from __future__ import annotations

from collections.abc import Sequence

from ov_tuner.engine.boundary import difference
from ov_tuner.workloads.llm.answer_record import Walk
from ov_tuner.workloads.llm.schema import LlmSetting


def most_served(walks: Sequence[Walk], chosen: LlmSetting, leading: set[LlmSetting],
                closed: bool) -> LlmSetting | None:
    """The contender whose walk served the most more load than `chosen`'s, told apart (the 95% interval of the
    difference above 0), among those that may lead; None where none does, or `chosen` was not walked."""
    by_setting = {w.setting: w for w in walks}
    if chosen not in by_setting:
        return None
    mine = by_setting[chosen].windows
    gains = [(difference(w.windows, mine, closed), w.setting)
             for w in walks if w.setting in leading and w.setting != chosen]
    more = [(d.value, setting) for d, setting in gains if d.differs and d.value > 0]
    return max(more, key=lambda found: found[0])[1] if more else None
