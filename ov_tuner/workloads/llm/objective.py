"""The LLM answer's objective, rung by rung, as read from the walks to the most load each setting serves within the
budget. In order: meet the budget at the load given robustly (a setting whose walk serves less than the load given met
it there over the rounds' passes pooled only, at its edge: in most of its windows there alone it missed); then the
most load within the budget; then output tokens a second (the rounds, in ov_tuner.workloads.llm.answer); then the
simplest. And whatever those give, never a setting the server left alone is shown to serve more than
(`above_the_choice`): run 3 of the demo's LLM step once deployed prompt lookup, 7 users (95%: 6..10) within the
budget at its edge for the 8 given, where OVMS's default served 11 (9..17)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ov_tuner.engine.boundary import Window, boundary, difference
from ov_tuner.workloads.llm.answer_record import BASELINES, Walk
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


def at_its_edge(walks: Sequence[Walk], load: float) -> set[LlmSetting]:
    """The settings whose walk serves less than the load given: there they met the budget, if at all, only over the
    rounds' passes pooled."""
    return {w.setting for w in walks if w.served < load}


def above_the_choice(walks: Sequence[Walk], chosen: LlmSetting, load: float, held: Collection[LlmSetting],
                     closed: bool) -> LlmSetting | None:
    """The baseline (the server left alone) to deploy instead of `chosen`: one whose walk serves more than
    `chosen`'s, told apart, or serves the load given where `chosen` serves it only at its edge; of several, the one
    that serves most (the simpler on a tie). None where `chosen` is below no baseline, or was not walked."""
    by_setting = {w.setting: w for w in walks}
    mine = by_setting.get(chosen)
    if mine is None:
        return None
    above = [w for w in (by_setting.get(b) for b in BASELINES if b != chosen and b not in held) if w is not None
             and (_serves_more(w, mine, closed) or (mine.served < load <= w.served))]
    return max(above, key=lambda w: (w.served, -BASELINES.index(w.setting))).setting if above else None


def _serves_more(walk: Walk, than: Walk, closed: bool) -> bool:
    found = difference(walk.windows, than.windows, closed)
    return found.differs and found.value > 0


def cannot_change(theirs: Sequence[Window], answers: Sequence[Window], closed: bool) -> bool:
    """Whether a walk can no longer change the answer: its interval's upper end is below the lower end of the
    answer's walk, so it neither serves more than the answer nor serves the load given where the answer does not
    (`above_the_choice`). Its walk then stops, the difference already told apart."""
    return bool(theirs) and bool(answers) and boundary(theirs, whole=closed).high < boundary(answers, whole=closed).low
