"""An LLM's words: a setting, a trial as it ends, the load, and the answer's lines (what to deploy, what it serves,
the latency its users see, its gain over GenAI left alone, why it was chosen, what it allocated)."""

from __future__ import annotations

import math

from ov_tuner.engine.boundary import Boundary
from ov_tuner.present.words.numbers import edge_text, gain
from ov_tuner.present.words.plan import settle_text
from ov_tuner.stats.settle import Settling
from ov_tuner.workloads.llm.answer_record import BASELINES, PERCENTILES, LlmAnswer, Rule, SettingFigures, Walk
from ov_tuner.workloads.llm.by_load import ByLoad
from ov_tuner.workloads.llm.measured import LlmHarness, LlmTrial
from ov_tuner.workloads.llm.present.words_outputs import (
    held_text,
    outputs_text,
    reply_text,
)
from ov_tuner.workloads.llm.present.words_setting import BASELINE_NAMES, budget_text, load_text, setting_text
from ov_tuner.workloads.llm.roofline import Bound, DecodeBound
from ov_tuner.workloads.llm.schema import (
    LlmSetting,
)


def trial_line(trial: LlmTrial) -> str:
    """A trial as it is stored: 'search  4096 batched tokens: 4351 tokens/s, 89.2 requests/s, TTFT p90 6.4 ms, ...'."""
    stage = ("search" if trial.searched else "walk" if trial.walked else
             f"{'by load ' if trial.by_load else ''}pass {(trial.pass_number or 0) + 1}")
    what = setting_text(trial.setting) + ("" if trial.walked_at is None else
                                          f" at {load_amount(trial.walked_at, trial.users is not None)}")
    if not trial.ok:
        return f"{stage:<8}  {what}: failed: {trial.error or 'no request completed'}"
    hits = f", prefix hits {trial.hit_rate:.0%}" if trial.setting.enable_prefix_caching else ""
    return (f"{stage:<8}  {what}: {trial.tokens_per_s:.0f} tokens/s, "
            f"{trial.requests_per_s:.1f} requests/s, TTFT p90 {trial.ttft_at(90):.1f} ms, "
            f"TPOT p90 {trial.tpot_at(90):.2f} ms{hits}")


def _latencies(figures: SettingFigures) -> str:
    ttft = " / ".join(f"p{p:g} {v:.1f}" for p, v in zip(PERCENTILES, figures.latencies.ttft_ms, strict=True))
    tpot = " / ".join(f"p{p:g} {v:.2f}" for p, v in zip(PERCENTILES, figures.latencies.tpot_ms, strict=True))
    return f"TTFT {ttft} ms; TPOT {tpot} ms"


def answer_lines(answer: LlmAnswer) -> list[tuple[str, str]]:
    """The answer as labelled lines, as the sweep's answer reads."""
    job = answer.job
    found = answer.answer
    shape = (f" ({job.model.architecture}, {job.model.layers} layers, width {job.model.width})" if job.model.layers
             else "")
    lines = [("model", f"{job.model.path}{shape} on {job.device}, OpenVINO GenAI {job.genai_version.split('-')[0]}"),
             ("load", load_text(job.load)), ("budget", budget_text(job.budget))]
    if found is None:
        best = answer.best_seen
        seen = "" if best is None else f"; the fastest seen, {setting_text(best.setting)}: {_latencies(best)}"
        return [*lines, ("answer", f"none: no setting met the budget in the rounds{seen}")]
    passes = f"{answer.passes} pass{'es' if answer.passes > 1 else ''}"
    lines += [("deploy", f"{job.device}, GenAI continuous batching: {setting_text(found.setting)}"),
              ("serves", f"{found.tokens_per_s:.0f} output tokens/s, {found.requests_per_s:.1f} requests/s; "
                         f"over {passes} side by side" if answer.passes else
                         f"{found.tokens_per_s:.0f} output tokens/s, {found.requests_per_s:.1f} requests/s (search)"),
              ("latency", _latencies(found))]
    shown = [found.setting, *(b for b in BASELINES if b != found.setting)]
    cached = [(f.setting, f.hit_rate) for s in shown for f in answer.searched if f.setting == s]
    if any(setting.enable_prefix_caching for setting, _ in cached):
        lines.append(("prefix hits", _hits(cached)))
    for g in answer.gains:
        told = "" if g.ratio.clear else ", no different" + (
            "" if g.settle is None else f" ({settle_text(g.settle, ('pass', 'passes'), f'{g.settle.difference:.0%}')})")
        missed = ("" if g.figures.meets else
                  f"; it missed the budget in the rounds {_at_budget(g.figures.at_budget, job.budget.percentile)}")
        lines.append(("vs default", f"{gain(g.ratio)} output tokens/s over {BASELINE_NAMES[g.baseline]}{told}{missed}"))
    lines += [("by load", by_load_text(k.setting, k.twin, k.verdict, job.load.closed, job.budget.percentile, k.walk))
              for k in answer.by_load]
    lines.append(("why", _why(answer)))
    lines.append(("outputs", outputs_text(answer, found.setting)))
    reply = reply_text(answer, found.setting)
    if reply is not None:
        lines.append(("reply", reply))
    if answer.held_back:
        lines.append(("held back", held_text(answer)))
    if answer.walks:
        lines.append(("users" if job.load.closed else "rate", _served(answer)))
    if answer.harness is not None:
        lines.append(("harness", harness_text(answer.harness, job.load.closed)))
    if answer.bound is not None:
        lines.append(("hardware", hardware_text(answer.bound)))
    lines.append(("memory", f"KV cache {found.kv_cache_bytes / 2**20:.1f} MiB allocated (at most "
                            f"{found.max_cache_usage:.0f}% of it in use), peak resident "
                            f"{found.peak_rss_bytes / 2**20:.0f} MiB; a fresh pipeline's first request "
                            f"{found.first_request_ms:.0f} ms (not counted)"))
    failed = f", {len(answer.failed)} failed ({_failures(answer)})" if answer.failed else ""
    lines.append(("searched", f"{len(answer.searched)} settings{failed}; Pareto front of tokens/s against TTFT p90: "
                              + "; ".join(setting_text(f.setting) for f in answer.pareto)))
    lines.append(("details", f"ov-tuner recommend {answer.results} --format python (the form that runs it)"))
    return lines


def _hits(cached: list[tuple[LlmSetting, float]]) -> str:
    """'64% of prompt tokens answered by the prefix cache; LLMPipeline's default 61%, GenAI's scheduler default off
    (counted ...)': the answer's first."""
    def rate(setting: LlmSetting, share: float) -> str:
        return f"{share:.0%}" if setting.enable_prefix_caching else "off"

    (mine, share), others = cached[0], cached[1:]
    rest = "".join(f"; {setting_text(s)} {rate(s, h)}" for s, h in others)
    return (f"{rate(mine, share)} of prompt tokens answered by the prefix cache{rest} (in the search; counted from "
            "the requests sent by GenAI's block rule: GenAI reports no hits)")














def harness_text(h: LlmHarness, closed: bool) -> str:
    """'with the model made trivial, at 42 users ov-tuner's load harness and GenAI's scheduler alone took TTFT p90
    3.1 ms (1% of the budget) and TPOT p90 0.62 ms (2%): the model, not the harness, set the users served', or
    'limited by ov-tuner's load harness: ...'."""
    at = load_amount(h.trial.walked_at or 0.0, closed)
    if not h.trial.ok:
        return f"not measured: the harness's own trial at {at} with the model made trivial failed ({h.trial.error})"
    p = f"p{h.budget.percentile:g}"
    parts = [f"{name} {p} {value:.3g} ms ({share:.0%} of the budget)" for name, value, share in (
        ("TTFT", h.ttft_ms, h.ttft_share), ("TPOT", h.tpot_ms, h.tpot_share))
        if value is not None and share is not None]
    took = (f"with the model made trivial, at {at} ov-tuner's load harness and GenAI's scheduler alone took "
            f"{' and '.join(parts)}")
    if h.limited:
        return f"limited by ov-tuner's load harness: {took}, so the model may serve more than the harness can offer"
    return f"{took}: the model on this device, not the harness, set the {'users' if closed else 'rate'} served"


BOUND_WORDS = {
    Bound.MEMORY: "bandwidth-bound: reading the weights and KV cache takes most of a step",
    Bound.COMPUTE: "compute-bound: the tokens' multiplications take most of a step",
    Bound.NEITHER: "neither bandwidth- nor compute-bound: time goes to scheduling, small operations and threads "
                   "waiting on each other",
}


def hardware_text(b: DecodeBound) -> str:
    """'each step reads 92.5 MB of weights and 4.1 MB of KV cache (u8), 33 steps/s: 3.2 GB/s, 10% of the 33.1 GB/s
    this host's cores copy at; 690 tokens/s computed (prompts less the prefix cache's hits, and outputs) need 186
    GFLOP/s, 61% of the 305 GFLOP/s its bf16 matmul runs at; compute-bound...; at this load no setting passes about
    380 output tokens/s'."""
    return (f"each step reads {b.weight_bytes / 1e6:.1f} MB of weights and {b.kv_bytes_per_step / 1e6:.1f} MB of KV "
            f"cache ({b.kv_precision}), {b.steps_per_s:.0f} steps/s: {b.memory_gbs:.1f} GB/s, {b.memory_share:.0%} "
            f"of the {b.host_memory_gbs:.1f} GB/s this host's cores copy at; {b.tokens_per_s:.0f} tokens/s computed "
            f"(prompts less the prefix cache's hits, and outputs) need {b.gflops:.0f} GFLOP/s, "
            f"{b.compute_share:.0%} of the {b.host_gflops:.0f} GFLOP/s its {b.matmul_precision} matmul runs at; "
            f"{BOUND_WORDS[b.bound]}; at this load no setting passes about {b.ceiling_tokens_per_s:.0f} output "
            "tokens/s")


def by_load_text(setting: LlmSetting, twin: LlmSetting, verdict: ByLoad, closed: bool, percentile: float = 90.0,
                 walk: Boundary | None = None) -> str:
    """'prompt lookup (5 tokens from 3-grams) over GenAI's scheduler default: +24.1% (95%: +9.8..+40.3%) output
    tokens/s at 1 users, ...; +21.7% (...) at 8 users, outside the budget (p90 TTFT 144 ms, TPOT 55.2 ms); pays up
    to 2 users, slower from 4 users', then what its own walk served (`walk`, where it was walked): '; its own walk:
    9 users (95%: 7..10) within the budget'."""
    if not verdict.at:
        return f"{setting_text(setting)} over {setting_text(twin)}: not measured (no load ran two passes of both)"
    each = "; ".join(f"{gain(p.ratio)} output tokens/s at {load_amount(p.load, closed)}"
                     f"{'' if p.ratio.clear else ', no different'}"
                     f"{'' if p.meets else ', outside the budget ' + _at_budget(p.at_budget, percentile)}"
                     for p in verdict.at)
    walked = "" if walk is None else f"; its own walk: {served_text(walk, closed)} within the budget"
    if not any(p.ratio.clear for p in verdict.at):
        return f"{setting_text(setting)} over {setting_text(twin)}: {each}; told apart at no load measured{walked}"
    ends = [f"pays up to {load_amount(verdict.pays_up_to, closed)}" if verdict.pays_up_to is not None else
            "not told faster at the least load", *([f"slower from {load_amount(verdict.slower_from, closed)}"]
                                                    if verdict.slower_from is not None else [])]
    return f"{setting_text(setting)} over {setting_text(twin)}: {each}; {', '.join(ends)}{walked}"


def _at_budget(at: tuple[float, float], percentile: float) -> str:
    """'(p90 TTFT 144 ms, TPOT 55.2 ms)'."""
    return f"(p{percentile:g} TTFT {at[0]:.0f} ms, TPOT {at[1]:.1f} ms)"


def load_amount(load: float, closed: bool) -> str:
    """'24 users', '1 user', or '7.25 requests/s' (an open loop's)."""
    return f"{load:g} user{'' if load == 1 else 's'}" if closed else f"{load:.3g} requests/s"


def _served(answer: LlmAnswer) -> str:
    """'58 users within the budget (95%: 56..59); GenAI's scheduler default 50 users (95%: 48..52); +8 users over
    it (95%: +4..+11); walked alternately, 24 windows (at the edge: 58 met 4 of 4, 60 met 0 of 3)'."""
    closed = answer.job.load.closed
    first, *others = answer.walks
    rest = "; ".join(f"{setting_text(w.setting)} {walk_text(w, closed)}" for w in others)
    gains = "; ".join(f"{_signed(d.value, closed)} over {BASELINE_NAMES[g.baseline]} (95%: "
                      f"{_signed(d.low, closed, unit=False)}..{_signed(d.high, closed, unit=False)})"
                      f"{'' if d.differs else ', not told apart'}{_settle(g.settle, closed)}"
                      for g in answer.walk_gains for d in (g.difference,))
    edge = edge_text(first.found)
    windows = sum(len(w.windows) for w in answer.walks)
    how = f"walked alternately, {windows} windows" + (f" (at the edge: {edge})" if edge else "")
    return "; ".join(p for p in (f"{walk_text(first, closed)} within the budget{_at_its_edge(answer)}", rest, gains,
                                 how) if p)


def _settle(settle: Settling | None, closed: bool) -> str:
    """' (about 3:10 more of measuring (12 more windows) would settle a difference of 3 users)', or nothing: users
    whole, rounded up."""
    if settle is None:
        return ""
    difference = float(math.ceil(settle.difference - 1e-9)) if closed else settle.difference
    return f" ({settle_text(settle, ('window', 'windows'), _signed(difference, closed).lstrip('+'))})"


def _at_its_edge(answer: LlmAnswer) -> str:
    """', fewer than the 8 users given: there it met the budget over the rounds' passes pooled, in 2 of 4 windows
    alone' where the load given is at the edge of what the answer serves (LlmAnswer.at_its_edge)."""
    if not answer.at_its_edge:
        return ""
    given = answer.job.load.amount
    windows, met = next(((n, m) for load, n, m in answer.walks[0].found.loads if load == given), (0, 0))
    alone = f", in {met} of {windows} windows alone" if windows else ""
    return (f", fewer than the {load_amount(given, answer.job.load.closed)} given: there it met the budget over the "
            f"rounds' passes pooled{alone}")


def walk_text(walk: Walk, closed: bool) -> str:
    """'58 users (95%: 53..64)', or '256 users or more' (never zero-wide: the interval carries a rerun's spread)."""
    return served_text(walk.found, closed)


def served_text(found: Boundary, closed: bool) -> str:
    """What a walk found: '58 users (95%: 53..64)', or '256 users or more'."""
    amount = load_amount(found.served, closed)
    if found.at_ceiling:
        return f"{amount} or more"
    low, high = (f"{found.low:g}", f"{found.high:g}") if closed else (f"{found.low:.3g}", f"{found.high:.3g}")
    return f"{amount} (95%: {low}..{high})"


def _signed(value: float, closed: bool, unit: bool = True) -> str:
    """'+8 users', '-1.2 requests/s'; without the unit, '+8'."""
    value += 0.0  # -0.0 reads as +0, as a bound of nought is
    number = f"{value:+g}" if closed else f"{value:+.3g}"
    return f"{number} {('user' if abs(value) == 1 else 'users') if closed else 'requests/s'}" if unit else number


# The objective's rungs, in order (ov_tuner.workloads.llm.objective): the words say which one decided the answer.
RUNGS = {1: "robustly within the budget at the load given", 2: "the most load within the budget",
         3: "the most output tokens/s", 4: "the simplest"}


def _why(answer: LlmAnswer) -> str:
    """Which rung of the objective decided the answer, and how."""
    return f"decided by the objective's rung {answer.rule.rung} of 4, {RUNGS[answer.rule.rung]}: {_how(answer)}"


def _how(answer: LlmAnswer) -> str:
    found, fastest = answer.answer, answer.fastest
    assert found is not None
    closed = answer.job.load.closed
    given = load_amount(answer.job.load.amount, closed)
    others = "; ".join(f"{walk_text(w, closed)} for {setting_text(w.setting)}" for w in answer.walks[1:])
    if answer.rule is Rule.BASELINE:
        return (f"the server left alone serves {walk_text(answer.walks[0], closed)} within the budget, against "
                f"{others}: the others served less, told apart, or met the budget at {given} only at their edge")
    if answer.rule is Rule.WALKED_DOWN:
        return (f"no setting met the budget at {given}; walked down, it serves "
                f"the most within it, {walk_text(answer.walks[0], closed)}" + (f", against {others}" if others else ""))
    assert fastest is not None
    if answer.rule is Rule.ROBUST:
        edge = next((walk_text(w, closed) for w in answer.walks if w.setting == fastest.setting), "")
        return (f"its walk serves {given} or more, {walk_text(answer.walks[0], closed)}; the faster "
                f"{setting_text(fastest.setting)} met the budget at {given} only over the rounds' passes pooled, its "
                f"walk serving {edge}")
    if answer.rule is Rule.MOST_SERVED:
        return (f"serves the most within the budget, {walk_text(answer.walks[0], closed)}, against {others}, told "
                "apart (the difference's 95% interval above 0); the rounds' tokens a second at the load given did not "
                "tell them apart or ranked it lower")
    if answer.rule is Rule.FASTEST:
        return "the fastest within the budget" + (" in the rounds side by side" if answer.passes else " searched")
    simpler = "GenAI left alone: nothing to change" if found.setting in BASELINES else "the smallest KV cache"
    if found.setting == fastest.setting:
        return f"the fastest within the budget in the rounds, though not told apart from the others there; {simpler}"
    return (f"not told apart from the fastest within the budget, {setting_text(fastest.setting)} "
            f"({fastest.tokens_per_s:.0f} tokens/s), and {simpler}")


def _failures(answer: LlmAnswer) -> str:
    reasons = dict.fromkeys(f"{setting_text(s)}: {error}" for s, error in answer.failed)
    return "; ".join(list(reasons)[:2]) + ("; ..." if len(reasons) > 2 else "")
