"""An LLM answer's record: the setting deployed with the figures its requests saw, its gains over GenAI left alone, the
walks to the most users each setting serves, the rule that chose it and the checks of what it says. Built by
ov_tuner.workloads.llm.answer; present/ words and draws it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ov_tuner.engine.boundary import Boundary, BoundaryDifference, Window
from ov_tuner.schema import Box, Environment
from ov_tuner.stats.headtohead import Ratio
from ov_tuner.stats.settle import Settling
from ov_tuner.workloads.llm.agreement import (
    LosslessCheck,
)
from ov_tuner.workloads.llm.by_load import KnobByLoad
from ov_tuner.workloads.llm.measured import LlmHarness, LlmTrial
from ov_tuner.workloads.llm.roofline import DecodeBound
from ov_tuner.workloads.llm.schema import (
    OVMS_DEFAULT,
    PIPELINE_DEFAULT,
    SCHEDULER_DEFAULT,
    LlmJob,
    LlmSetting,
)

# The baselines, in the order they are stated: GenAI's scheduler as constructed, LLMPipeline's own, and OVMS's given
# only the model.
BASELINES = (SCHEDULER_DEFAULT, PIPELINE_DEFAULT, OVMS_DEFAULT)
PERCENTILES = (50.0, 90.0, 99.0)
GAIN_CONFIDENCE = 0.95


@dataclass(frozen=True)
class Latencies:
    """Per-request times at PERCENTILES (ms): to first token, and per output token after it."""

    ttft_ms: tuple[float, ...]
    tpot_ms: tuple[float, ...]


@dataclass(frozen=True)
class SettingFigures:
    """One setting over its trials (of the search, or pooled over its passes)."""

    setting: LlmSetting
    trials: int
    tokens_per_s: float
    requests_per_s: float
    latencies: Latencies
    at_budget: tuple[float, float]  # TTFT and TPOT at the budget's percentile (ms)
    meets: bool
    kv_cache_bytes: int
    max_cache_usage: float  # the most of the KV cache in use at once, percent
    peak_rss_bytes: int
    first_request_ms: float
    hit_rate: float = 0.0  # the timed requests' prompt tokens the prefix cache answered (ov_tuner.workloads.llm.prefix)


@dataclass(frozen=True)
class LlmGain:
    """The answer's output tokens a second over a baseline's, as a ratio paired by pass, with the rerun term."""

    baseline: LlmSetting
    figures: SettingFigures
    ratio: Ratio
    settle: Settling | None = None  # where not told apart: about how many more passes would tell them apart


class Rule(str, Enum):
    """Why the answer is the one it is: the rung of the objective that decided it (ov_tuner.workloads.llm.objective).
    The objective, in order: meet the budget at the load given, robustly (its walk serves that load, not only the
    rounds' passes pooled); then the most load within the budget; then output tokens a second; then the simplest."""

    ROBUST = "meets the budget robustly"  # faster settings met it at the load given only at their walk's edge
    MOST_SERVED = "most served"  # its walk served more load within the budget than the rounds' choice's, told apart
    BASELINE = "never below the server left alone"  # the choice served less than this baseline, told apart, or met
    # the budget at the load given only at its edge where this baseline did not
    FASTEST = "fastest"  # the rounds' leader within the budget, told apart from the rest (or the search's)
    TIED_SIMPLER = "tied, simpler"  # not told apart from the others, and GenAI left alone or the smallest KV cache
    WALKED_DOWN = "walked down"  # nothing met the budget at the load given; its walk down served the most

    @property
    def rung(self) -> int:
        """The objective's rung that decided: 1 robustly within the budget, 2 the most load, 3 tokens a second, 4 the
        simplest."""
        return {Rule.ROBUST: 1, Rule.MOST_SERVED: 2, Rule.BASELINE: 2, Rule.WALKED_DOWN: 2, Rule.FASTEST: 3,
                Rule.TIED_SIMPLER: 4}[self]


@dataclass(frozen=True)
class Walk:
    """The walk of one setting: its windows (a load, and whether it met the budget) and what they say, the most load
    it served within the budget (users, or requests a second for an open loop; 0: not even the least tried) with its
    95% interval, and whether every load tried met it (the walk stopped at its ceiling: it may serve more)."""

    setting: LlmSetting
    windows: tuple[Window, ...]
    found: Boundary

    @property
    def served(self) -> float:
        return self.found.served

    @property
    def at_ceiling(self) -> bool:
        return self.found.at_ceiling


@dataclass(frozen=True)
class WalkGain:
    """The answer's walk against a baseline's, walked alternately: the load it serves more, with its interval."""

    baseline: LlmSetting
    difference: BoundaryDifference
    settle: Settling | None = None  # where not told apart: about how many more windows would tell them apart


@dataclass(frozen=True)
class LlmAnswer:
    results: str  # the results file it was read from
    environment: Environment | None
    job: LlmJob
    answer: SettingFigures | None  # None: no setting met the budget
    fastest: SettingFigures | None  # the rounds' leader within the budget (the answer, unless tied with simpler)
    closest: SettingFigures | None  # where nothing met the budget: the one that missed it least (rounds, else search)
    best_seen: SettingFigures | None  # the search's fastest, whether or not it met the budget
    gains: tuple[LlmGain, ...]
    searched: tuple[SettingFigures, ...]
    failed: tuple[tuple[LlmSetting, str], ...]
    pareto: tuple[SettingFigures, ...]  # the search's settings no other beats on both tokens/s and TTFT p90
    passes: int
    trials: tuple[LlmTrial, ...]  # every one stored, in order
    walks: tuple[Walk, ...]  # the answer's first, then the others'
    walk_gains: tuple[WalkGain, ...]  # the answer's walk against each baseline's
    # Greedy text alike with GenAI's scheduler default's (ov_tuner.workloads.llm.agreement).
    agreements: dict[LlmSetting, float]
    next_tokens: dict[LlmSetting, float]  # next tokens alike along the most exact setting's continuation
    judged: dict[LlmSetting, float]  # what the agreement limit judges, for the settings changing a precision
    cosines: dict[LlmSetting, float]  # the first token's logits against the most exact setting's, worst prompt
    replies: dict[LlmSetting, tuple[str, str]]  # a prompts file's first line, and each setting's answer to it
    min_agreement: float
    held_back: tuple[SettingFigures, ...]  # within the budget but saying too little alike, fastest first
    lossless: dict[LlmSetting, LosslessCheck]  # a lossless knob's greedy text against its twin's, and rounding's floor
    rule: Rule
    harness: LlmHarness | None = None  # the load harness alone at the load the answer serves (its walks done)
    instance_cores: tuple[tuple[int, ...], ...] = ()  # the cores each of the answer's instances ran on
    bound: DecodeBound | None = None  # the answer's steps against the host's roofline (None: not measured)
    by_load: tuple[KnobByLoad, ...] = ()  # each speculative setting against its twin at the loads that decide it

    @property
    def at_its_edge(self) -> bool:
        """Whether the answer met the budget at the load given over the rounds' passes pooled, while its walk served
        less: there most of its windows alone missed it, so the load given is at the edge of what it serves (the
        demo, 2 cores: prompt lookup deployed for 8 users, its walk serving 7, 95%: 6..10; 8 met in 2 of 4 windows).
        Not where nothing met the budget at the load given (the walk down found the answer)."""
        walk = next((w for w in self.walks if self.answer is not None and w.setting == self.answer.setting), None)
        return walk is not None and self.rule is not Rule.WALKED_DOWN and walk.served < self.job.load.amount

    @property
    def box(self) -> Box | None:
        """The CPUs and memory the process could use where it was measured."""
        return None if self.environment is None else self.environment.box
