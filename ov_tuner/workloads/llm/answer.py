"""An LLM's answer from its stored trials: which settings met the latency budget in the search, which of them won the
rounds side by side against GenAI left alone, by how much (paired intervals over their passes), what its requests saw
(time to first token and per output token at p50/p90/p99), what it allocated, and the search's Pareto front of
throughput against time to first token.

Ranking is the rounds engine's (pass-adjusted means of output tokens a second at the load given); a contender leads
only where its requests, pooled over its passes, meet the budget at the budget's percentile. With a budget, the walks
to the most load (users, or requests a second) each of the rounds' choice, the rounds' leader and GenAI's defaults
serve within it, walked alternately, have the last word: one whose walk serves more than the rounds' choice's, the
95% interval of the difference above 0 (ov_tuner.engine.boundary), is the answer, since the load served within the
budget is what the user asked.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

import numpy as np

from ov_tuner.engine.boundary import Window, boundary, difference
from ov_tuner.schema import Environment
from ov_tuner.stats.headtohead import Ratio, paired_ratio
from ov_tuner.stats.interval import pass_adjusted_means
from ov_tuner.workloads.llm.agreement import (
    agreements,
    judged_agreements,
    lossless_checks,
    lowest_cosines,
    next_token_agreements,
)
from ov_tuner.workloads.llm.answer_record import (
    BASELINES,
    GAIN_CONFIDENCE,
    PERCENTILES,
    Latencies,
    LlmAnswer,
    LlmGain,
    Rule,
    SettingFigures,
    Walk,
    WalkGain,
)
from ov_tuner.workloads.llm.by_load import knob_by_load, paired_in_rounds
from ov_tuner.workloads.llm.instances import core_shares
from ov_tuner.workloads.llm.measured import LlmHarness, LlmOutputs, LlmTrial, StoredLlm, at_budget, pooled
from ov_tuner.workloads.llm.objective import above_the_choice, at_its_edge, most_served
from ov_tuner.workloads.llm.roofline import decode_bound
from ov_tuner.workloads.llm.schema import (
    LlmBudget,
    LlmJob,
    LlmLoad,
    LlmSetting,
)
from ov_tuner.workloads.llm.undecided import gain_settling, walk_settling


def figures_of(setting: LlmSetting, trials: Sequence[LlmTrial], budget: LlmBudget) -> SettingFigures:
    """A setting's figures over `trials` (all ok): throughput as the mean of the trials', latencies over every
    request of every trial."""
    ttft, tpot = pooled(trials)
    at = at_budget(ttft, tpot, budget)
    return SettingFigures(
        setting=setting, trials=len(trials), tokens_per_s=float(np.mean([t.tokens_per_s for t in trials])),
        requests_per_s=float(np.mean([t.requests_per_s for t in trials])),
        latencies=Latencies(tuple(float(np.percentile(ttft, p)) for p in PERCENTILES),
                            tuple(float(np.percentile(tpot, p)) if tpot.size else math.nan for p in PERCENTILES)),
        at_budget=at, meets=budget.holds(at), kv_cache_bytes=max(t.kv_cache_bytes for t in trials),
        max_cache_usage=max(t.max_cache_usage for t in trials),
        peak_rss_bytes=max(t.peak_rss_bytes for t in trials),
        first_request_ms=float(np.median([t.first_request_ms for t in trials])),
        hit_rate=sum(t.cached_tokens for t in trials) / max(sum(t.prompt_tokens for t in trials), 1))


def round_table(trials: Sequence[LlmTrial], contenders: Sequence[LlmSetting]) -> np.ndarray:
    """The rounds' output tokens a second, passes x contenders (NaN where a pass did not measure one or it failed)."""
    rows = 1 + max((t.pass_number for t in trials if t.in_rounds and t.pass_number is not None), default=-1)
    table = np.full((rows, len(contenders)), math.nan)
    for t in trials:
        if t.in_rounds and t.pass_number is not None and t.ok and t.setting in contenders:
            table[t.pass_number, contenders.index(t.setting)] = t.tokens_per_s
    return table


def searched_figures(trials: Sequence[LlmTrial], budget: LlmBudget) -> list[SettingFigures]:
    """Each setting's figures over its search trials, in the order first tried."""
    settings = list(dict.fromkeys(t.setting for t in trials if t.searched and t.ok))
    return [figures_of(s, _searched(trials, s), budget) for s in settings]


def contenders_of(searched: Sequence[SettingFigures], most: int, held: Collection[LlmSetting] = ()) -> list[LlmSetting]:
    """The settings that go to the rounds: the `most` fastest that met the budget and are not `held` back, the
    search's fastest speculative setting (met or not), then the baselines.

    Why the speculative one whether or not it met: whether it pays depends on the load, and one search trial at the
    budget's edge cannot say (the demo, 2 cores: prompt lookup missed the TPOT budget in its search trial, 60.4 ms
    against 50, then was told +25.0% (95%: +5.8..+47.6%) faster than its twin within the budget at the same 8 users,
    3 passes side by side). In the rounds it is judged at the user's load like the others and deployed where it wins
    there; those passes also give its verdict at that load (ov_tuner.workloads.llm.by_load)."""
    meeting = sorted((f for f in searched if f.meets and f.setting not in BASELINES and f.setting not in held),
                     key=lambda f: -f.tokens_per_s)
    proposing = [f for f in searched if f.setting.speculative and f.setting not in held]
    fastest = [max(proposing, key=lambda f: f.tokens_per_s).setting] if proposing else []
    return list(dict.fromkeys([*(f.setting for f in meeting[:most]), *fastest, *BASELINES]))


def held_back(outputs: Sequence[LlmOutputs], limit: float) -> set[LlmSetting]:
    """The settings whose agreement (ov_tuner.workloads.llm.agreement.judged_agreements) is below `limit`, and those
    whose lossless knob changes the greedy text beyond rounding (lossless_checks), unless `limit` is 0 (keep all)."""
    return ({s for s, share in judged_agreements(outputs).items() if share < limit} |
            {s for s, check in lossless_checks(outputs).items() if check.differs and limit > 0})


def llm_answer(stored: StoredLlm, min_agreement: float | None = None) -> LlmAnswer:
    """The answer from every stored trial. With rounds: among the contenders that met the budget in them, the one
    the rounds rank first, unless others are not told apart from it (their 95% interval against it holds 1); of
    those that no contender is told faster than, GenAI left alone where it is one (nothing to change: its scheduler
    default before LLMPipeline's, so two defaults that are not told apart give the same answer every run), else the
    one with the smallest KV cache; and where a walk found another contender serving more within the budget, told
    apart, that one. Without rounds: the search's fastest within the budget. A setting that says less alike than
    `min_agreement` (the job's limit where None) never leads."""
    job, trials = stored.job, stored.trials
    limit = job.min_agreement if min_agreement is None else min_agreement
    judged = judged_agreements(stored.outputs)
    held = held_back(stored.outputs, limit)
    searched = searched_figures(trials, job.budget)
    contenders = list(dict.fromkeys(t.setting for t in trials if t.in_rounds))
    table = round_table(trials, contenders)
    pooled = {s: [t for t in trials if t.in_rounds and t.ok and t.setting == s] for s in contenders}
    in_rounds = {s: figures_of(s, pooled[s], job.budget) for s in contenders if pooled[s]}
    means = pass_adjusted_means(table) if table.size else np.array([])
    leading = [i for i, s in enumerate(contenders)
               if s in in_rounds and in_rounds[s].meets and s not in held and np.isfinite(means[i])]
    answer, fastest = None, None
    gains: tuple[LlmGain, ...] = ()
    closed = job.load.closed  # users, whole numbers; else requests a second
    walked = _walks(trials, job)
    rule = Rule.FASTEST
    if leading:
        edge = at_its_edge(walked, job.load.amount)
        pool = [i for i in leading if contenders[i] not in edge] or leading  # rung 1: robustly within the budget
        top = max(pool, key=lambda i: means[i])
        tied = [i for i in pool if i == top or _holds_one(paired_ratio(table[:, i], table[:, top], GAIN_CONFIDENCE))]
        unbeaten = [i for i in tied if not any(_beats(table[:, j], table[:, i]) for j in pool if j != i)]
        best = min(unbeaten or [top], key=lambda i: (_simpler(contenders[i]), in_rounds[contenders[i]].kv_cache_bytes))
        leader = max(leading, key=lambda i: means[i])
        rule = Rule.ROBUST if leader not in pool else Rule.FASTEST if tied == [top] else Rule.TIED_SIMPLER
        most = most_served(walked, contenders[best], {contenders[i] for i in pool}, closed)
        if most is not None:
            best, rule = contenders.index(most), Rule.MOST_SERVED
        above = above_the_choice(walked, contenders[best], job.load.amount, held, closed)
        chosen = contenders[best] if above is None else above
        rule = rule if above is None else Rule.BASELINE
        answer = in_rounds.get(chosen) or _own_figures(chosen, trials, job.budget)
        fastest = in_rounds[contenders[leader]]
        gains = tuple(LlmGain(b, in_rounds[b], ratio, gain_settling(ratio, trials, (chosen, b)))
                      for b in BASELINES if b in in_rounds and b != chosen and chosen in in_rounds
                      for ratio in (paired_ratio(table[:, contenders.index(chosen)], table[:, contenders.index(b)],
                                                 GAIN_CONFIDENCE),))
    elif not contenders:
        meeting = [f for f in searched if f.meets and f.setting not in held]
        answer = fastest = max(meeting, key=lambda f: f.tokens_per_s) if meeting else None
    closest = None if answer is not None else least_missed([*in_rounds.values()] or searched, job.budget)
    serving = [w for w in walked if w.served > 0 and w.setting not in held]
    if answer is None and serving:
        down = max(serving, key=lambda w: (w.served, -_simpler(w.setting)))
        answer, rule = in_rounds.get(down.setting) or _own_figures(down.setting, trials, job.budget), Rule.WALKED_DOWN
    best_seen = max(searched, key=lambda f: f.tokens_per_s) if searched else None
    failed = tuple((t.setting, t.error) for t in trials if t.error is not None and t.searched)
    kept_back = tuple(sorted((f for f in searched if f.meets and f.setting in held), key=lambda f: -f.tokens_per_s))
    return LlmAnswer(results=stored.results, environment=stored.environment, job=job, answer=answer, fastest=fastest,
                     closest=closest,
                     best_seen=best_seen, gains=gains, searched=tuple(searched), failed=failed,
                     pareto=tuple(pareto(searched)), passes=table.shape[0], trials=tuple(trials),
                     walks=_answer_first(walked, answer), walk_gains=_walk_gains(walked, answer, trials, closed),
                     agreements=agreements(stored.outputs), next_tokens=next_token_agreements(stored.outputs),
                     judged=judged, cosines=lowest_cosines(stored.outputs),
                     replies={o.setting: (o.asked, o.reply) for o in stored.outputs if o.reply},
                     min_agreement=limit, held_back=kept_back, lossless=lossless_checks(stored.outputs), rule=rule,
                     harness=LlmHarness(stored.harness[-1], job.budget) if stored.harness else None,
                     instance_cores=_instance_cores(stored.environment, answer),
                     bound=None if answer is None else decode_bound(
                         job.model, answer.setting, pooled.get(answer.setting) or _searched(trials, answer.setting),
                         stored.roofline),
                     by_load=tuple(knob_by_load(trials, s, job.budget, job.load.amount,
                                                next((w.found for w in walked if w.setting == s), None))
                                   for s in _judged_by_load(trials)))


def _judged_by_load(trials: Sequence[LlmTrial]) -> list[LlmSetting]:
    """The speculative settings with a verdict by load: those with by-load passes, and those that went to the rounds
    beside their twin (which measured the pair at the load given)."""
    measured = {t.setting for t in trials if t.by_load}
    return [s for s in dict.fromkeys(t.setting for t in trials if t.setting.speculative)
            if s in measured or paired_in_rounds(trials, s)]


def budget_miss(figures: SettingFigures, budget: LlmBudget) -> float:
    """How far a setting's latencies at the budget's percentile are from its limits: the larger of each over its
    limit (1 or less: it meets the budget)."""
    ratios = [at / limit for at, limit in zip(figures.at_budget, (budget.ttft_ms, budget.tpot_ms), strict=True)
              if limit is not None and limit > 0]
    return max(ratios, default=0.0) if all(math.isfinite(r) for r in ratios) else math.inf


def least_missed(figures: Sequence[SettingFigures], budget: LlmBudget) -> SettingFigures | None:
    """The setting that misses the budget least."""
    return min(figures, key=lambda f: budget_miss(f, budget), default=None)


def _searched(trials: Sequence[LlmTrial], setting: LlmSetting) -> list[LlmTrial]:
    """The search's trials of `setting` that ran."""
    return [t for t in trials if t.searched and t.ok and t.setting == setting]


def _own_figures(setting: LlmSetting, trials: Sequence[LlmTrial], budget: LlmBudget) -> SettingFigures:
    """A setting's figures outside the rounds: over its search trials, or, where a time budget ended the search
    before it, over every trial of it that ran (its walk's)."""
    return figures_of(setting, _searched(trials, setting) or [t for t in trials if t.ok and t.setting == setting],
                      budget)


def _instance_cores(environment: Environment | None, answer: SettingFigures | None) -> tuple[tuple[int, ...], ...]:
    """The cores each instance of the answer ran on: the cpuset it was measured in, in runs of neighbours (the first
    cores, one a run, where it was not recorded)."""
    if answer is None:
        return ()
    count = answer.setting.instances
    cpus = sorted(environment.box.cpuset) if environment is not None and environment.box is not None else \
        list(range(count))
    return tuple(tuple(share) for share in core_shares(cpus, count))


def _simpler(setting: LlmSetting) -> int:
    """How far a setting is from GenAI left alone: its scheduler default 0, LLMPipeline's default 1, OVMS's 2, any
    other 3, a speculative one 4 (among those tied, the one that proposes no tokens: speculation costs once the
    device is busy)."""
    return BASELINES.index(setting) if setting in BASELINES else len(BASELINES) + setting.speculative


def _walk_gains(walks: Sequence[Walk], answer: SettingFigures | None, trials: Sequence[LlmTrial],
                closed: bool) -> tuple[WalkGain, ...]:
    """The answer's walk against each baseline's that was walked."""
    mine = next((w for w in walks if answer is not None and w.setting == answer.setting), None)
    if mine is None:
        return ()
    return tuple(WalkGain(w.setting, found, walk_settling(found, (mine.served, w.served), trials,
                                                         (mine.setting, w.setting), closed))
                 for w in walks if w.setting in BASELINES and w.setting != mine.setting
                 for found in (difference(mine.windows, w.windows, closed),))


def _answer_first(walks: Sequence[Walk], answer: SettingFigures | None) -> tuple[Walk, ...]:
    mine = [w for w in walks if answer is not None and w.setting == answer.setting]
    return (*mine, *(w for w in walks if w not in mine))


def walk_windows(trials: Sequence[LlmTrial], setting: LlmSetting, load: LlmLoad, budget: LlmBudget) -> list[Window]:
    """The walk's windows for `setting`, in the order measured: each load tried with whether its trial met the
    budget (a failed trial did not). The rounds' trials are windows at the job's `load`, the walk's start, so a walk
    does not measure it again: each of them cost a window of up to 10 s, at a load every setting that reached the
    rounds met."""
    return [(load.amount if t.walked_at is None else t.walked_at, t.ok and figures_of(setting, [t], budget).meets)
            for t in trials if t.setting == setting and (t.walked or t.in_rounds)]


def _walks(trials: Sequence[LlmTrial], job: LlmJob) -> tuple[Walk, ...]:
    walked = list(dict.fromkeys(t.setting for t in trials if t.walked))
    found = []
    for setting in walked:
        windows = walk_windows(trials, setting, job.load, job.budget)
        found.append(Walk(setting, tuple(windows), boundary(windows, whole=job.load.closed)))
    return tuple(found)


def _beats(mine: np.ndarray, theirs: np.ndarray) -> bool:
    """Told faster, pass by pass, than the other: the interval its gain row states excludes 1 from above. Of the
    contenders not told apart from the leader, one another contender beats is not deployed (the sweep's cheapest rule
    asks the same): two passes on 2 cores once tied GenAI's scheduler default with a noisy leader while OVMS's
    default beat it by 26.0% (95%: 2.6..43.8%), and the answer was the slower of the two."""
    ratio = paired_ratio(mine, theirs, GAIN_CONFIDENCE)
    return ratio.clear and ratio.value > 1


def _holds_one(ratio: Ratio) -> bool:
    """Not told apart from the leader: the same interval the words state against it (a rerun's spread in it), so
    "no different" in a gain's row is never a setting the rule treated as slower. Without the rerun term three
    passes of steady ratios (0.974-0.985) ruled GenAI's scheduler default out while its row said +2.3% (95%:
    -7.4..+12.9%), no different, and the answer became KV cache u8 in one run of three."""
    return ratio.passes >= 2 and not ratio.clear


def pareto(figures: Sequence[SettingFigures]) -> list[SettingFigures]:
    """The settings no other beats on both output tokens a second (higher) and TTFT p90 (lower), fastest first."""
    def beaten(f: SettingFigures) -> bool:
        return any(o.tokens_per_s >= f.tokens_per_s and o.latencies.ttft_ms[1] <= f.latencies.ttft_ms[1] and
                   (o.tokens_per_s, o.latencies.ttft_ms[1]) != (f.tokens_per_s, f.latencies.ttft_ms[1])
                   for o in figures)
    return sorted((f for f in figures if not beaten(f)), key=lambda f: -f.tokens_per_s)


def speculative_setting(answer: LlmAnswer) -> LlmSetting | None:
    """The speculative setting whose verdict by load is measured: the answer where it proposes tokens, else the
    search's fastest that does and was not held back (None: the search tried none)."""
    if answer.answer is not None and answer.answer.setting.speculative:
        return answer.answer.setting
    held = {f.setting for f in answer.held_back}
    proposing = [f for f in answer.searched if f.setting.speculative and f.setting not in held]
    return max(proposing, key=lambda f: f.tokens_per_s).setting if proposing else None
