"""Whether a setting pays at each load: its output tokens a second over its twin's (the same setting without the knob,
speculative decoding's or another's), measured side by side in passes at each load, and the loads where it is told
faster or slower.

Why by load: a knob that trades work for latency pays while the device has idle capacity and costs once it is busy.
Prompt lookup decoding proposes tokens from the prompt and verifies them in one step: at one user the step's weights
are read once for several tokens (1.20-1.38x the tokens a second on summarise/rewrite requests, 2-core Zen 4), while
with four requests in a batch the step is already full and the rejected proposals are work thrown away (0.71-0.94x).
One verdict at one load would be wrong at the other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ov_tuner.engine.boundary import Boundary
from ov_tuner.stats.headtohead import Ratio, paired_ratio
from ov_tuner.workloads.llm.measured import LlmTrial, at_budget, pooled
from ov_tuner.workloads.llm.schema import LlmBudget, LlmSetting

CONFIDENCE = 0.95
# The passes of a speculative setting and its twin at each load that decides it, at most (the job's passes, if fewer).
BY_LOAD_PASSES = 3
# How near the load given the edge of the budget may lie and be left out: there the load given stands for it (the
# demo's 8 users and the 9 its answer served told the same in three runs; each load is six windows).
NEAR_SHARE = 0.25


@dataclass(frozen=True)
class AtLoad:
    """The setting over its twin at one load (users, or requests a second): the ratio of output tokens a second,
    paired by pass, with its interval."""

    load: float
    ratio: Ratio
    at_budget: tuple[float, float]  # the setting's TTFT and TPOT at the budget's percentile there, its passes pooled
    meets: bool  # whether those are within the budget: a setting faster outside it is not one to serve with

    @property
    def faster(self) -> bool:
        return self.ratio.clear and self.ratio.value > 1

    @property
    def slower(self) -> bool:
        return self.ratio.clear and self.ratio.value < 1


@dataclass(frozen=True)
class ByLoad:
    """The setting against its twin at each load measured, in ascending load."""

    at: tuple[AtLoad, ...]

    @property
    def pays_up_to(self) -> float | None:
        """The highest load of the run of loads, from the least, where it is told faster within the budget (None: not
        at the least): faster but outside the budget is no load to serve at."""
        found = None
        for point in self.at:
            if not (point.faster and point.meets):
                break
            found = point.load
        return found

    @property
    def slower_from(self) -> float | None:
        """The least load where it is told slower (None: at none measured)."""
        return next((point.load for point in self.at if point.slower), None)

    def at_load(self, load: float) -> AtLoad | None:
        """The ratio at `load` (None: not measured there)."""
        return next((p for p in self.at if p.load == load), None)


@dataclass(frozen=True)
class KnobByLoad:
    """A speculative setting against its twin (the same setting proposing nothing), load by load, and the most load
    its own walk served within the budget, where it was walked (the fastest in the rounds, or the answer)."""

    setting: LlmSetting
    twin: LlmSetting
    verdict: ByLoad
    walk: Boundary | None = None


def by_load(passes: Mapping[float, Sequence[tuple[float, float]]],
            latencies: Mapping[float, tuple[tuple[float, float], bool]]) -> ByLoad:
    """Each load's passes, (the setting's output tokens a second, its twin's) side by side, as ratios, with the
    setting's latencies at the budget's percentile there and whether they meet it; a load with fewer than two passes
    has no interval and is left out."""
    found = []
    for load in sorted(passes):
        pairs = np.asarray(passes[load], dtype=float).reshape(-1, 2)
        if pairs.shape[0] >= 2:
            found.append(AtLoad(load, paired_ratio(pairs[:, 0], pairs[:, 1], CONFIDENCE), *latencies[load]))
    return ByLoad(tuple(found))


def deciding_loads(given: float, closed: bool, edge: float | None, own: Boundary | None = None) -> list[float]:
    """The loads that decide a speculative setting: one user (a closed loop's least), the load given, and the edge of
    the budget (the most the answer's walk served; None: not walked) where it lies further than NEAR_SHARE of the
    load given from it and not above the high end of the setting's `own` walk's interval, ascending.

    Why not above it: there its own walk has told already that it misses the budget, and a speed outside the budget
    decides nothing (in the demo, prompt lookup's walk served 9 users (95%: 7..10), and the edge's six windows at 12
    users read it +18.4% (95%: -4.8..+47.2%) faster, outside the budget). A walk that stopped at its ceiling bounds
    nothing."""
    apart = edge is not None and edge > 0 and abs(edge - given) > NEAR_SHARE * given
    within = own is None or own.at_ceiling or (edge is not None and edge <= own.high)
    return sorted({*([1.0] if closed else []), given, *([edge] if apart and within and edge is not None else [])})


def paired_in_rounds(trials: Sequence[LlmTrial], setting: LlmSetting) -> bool:
    """Whether `setting` and its twin both went to the rounds, which measured them side by side at the load given."""
    return {setting, setting.without_speculation()} <= {t.setting for t in trials if t.in_rounds}


def knob_by_load(trials: Sequence[LlmTrial], setting: LlmSetting, budget: LlmBudget, given: float,
                 walk: Boundary | None = None) -> KnobByLoad:
    """`setting` against its twin from their by-load passes: each load's passes where both ran, and the setting's
    latencies there against `budget`; at the load `given`, the rounds' passes where both went to the rounds and no
    by-load pass ran there (the rounds measure every contender side by side in each pass, at that load); `walk`:
    what the setting's own walk found, where it was walked."""
    twin = setting.without_speculation()
    figures = {(t.setting, t.walked_at, t.pass_number): t for t in trials if t.by_load and t.ok}
    if not any(load == given for _, load, _ in figures):
        figures |= {(t.setting, given, t.pass_number): t for t in trials if t.in_rounds and t.ok}
    passes: dict[float, list[tuple[float, float]]] = {}
    mine: dict[float, list[LlmTrial]] = {}
    for (found, load, number), trial in figures.items():
        if found == setting and load is not None and (theirs := figures.get((twin, load, number))) is not None:
            passes.setdefault(load, []).append((trial.tokens_per_s, theirs.tokens_per_s))
            mine.setdefault(load, []).append(trial)
    latencies: dict[float, tuple[tuple[float, float], bool]] = {}
    for load, ran in mine.items():
        at = at_budget(*pooled(ran), budget)
        latencies[load] = (at, budget.holds(at))
    return KnobByLoad(setting, twin, by_load(passes, latencies), walk)
