"""Which settings the LLM search measures: GenAI left alone first, then, axis by axis, each value of one axis on the
best setting so far (the fastest within the budget; where none is, the one that misses it least); or, asked for,
every combination of the axes.

Why axis by axis: the knobs that pay on a traffic are few (prefix caching on conversations, the batched-token budget
where prompts are long, a KV precision where memory binds), and their grid grows as a product: three axes of two or
three values are 18 settings, each a trial of several seconds on a pipeline of its own. One axis at a time measures
their sum instead, from the setting the last axis chose, and the rounds side by side then decide among the best of
them and the baselines. What it can miss is two values that pay only together; `--search grid` measures those.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Any

from ov_tuner.workloads.llm.answer import least_missed
from ov_tuner.workloads.llm.answer_record import SettingFigures
from ov_tuner.workloads.llm.schema import LlmBudget, LlmSetting, LlmSpace


class LlmSearch(str, Enum):
    AXES = "axes"  # the baselines, then each axis's values on the best setting so far
    GRID = "grid"  # the baselines, then every combination of the axes


def leader(searched: Sequence[SettingFigures], budget: LlmBudget) -> SettingFigures | None:
    """The fastest setting within the budget; where none is, the one that misses it least."""
    meeting = [f for f in searched if f.meets]
    if meeting:
        return max(meeting, key=lambda f: f.tokens_per_s)
    return least_missed(searched, budget)


def searched_axes(space: LlmSpace) -> list[tuple[str, tuple[Any, ...]]]:
    """The axes an axis-by-axis search steps along: those of more than one value, in the space's order."""
    return [(name, values) for name, values in space.axes().items() if len(values) > 1]


def along(space: LlmSpace, best: LlmSetting, name: str, values: Sequence[Any]) -> list[LlmSetting]:
    """Each value of one axis on the best setting so far, the axes a user pinned held."""
    return list(dict.fromkeys(space.pinned(best.with_value(name, value)) for value in values))


def missed_budget(budget: LlmBudget, searched: list[SettingFigures], walked: bool = False) -> str:
    """No setting met the budget (`walked`: at any load its walk tried): the one line that says so, with the best
    seen."""
    if not searched:
        return "no setting ran: every trial failed (ov-tuner show lists why)"
    best = leader(searched, budget)  # none meets it: the one that misses it least
    assert best is not None
    percentile = f"p{budget.percentile:g}"
    return (f"no setting met the budget ({percentile} TTFT {budget.ttft_ms or '-'} ms, TPOT {budget.tpot_ms or '-'} "
            f"ms) {'at any load tried' if walked else 'under this load'}; the closest gave TTFT "
            f"{best.at_budget[0]:.1f} ms and TPOT "
            f"{best.at_budget[1]:.2f} ms at {percentile}: raise the budget or lower the load (fewer users or a lower "
            "rate)")
