"""Words for the answer: what to deploy and by which rule, the gains over the baselines, the precision ratios, and a
baseline that beat the search."""

from __future__ import annotations

from ov_tuner.analyse.baselines import BaselineGain
from ov_tuner.analyse.confirmed import ConfirmedAnswer, CostStep, PrecisionRatio, Rule, Standing
from ov_tuner.analyse.recommend import Recommendation
from ov_tuner.present.words.numbers import factor, gain, gain_inline, percentile_name, signed
from ov_tuner.present.words.plan import settle_text
from ov_tuner.schema import Contender, Mode, PointResult, cell_text
from ov_tuner.stats.headtohead import RoundFigures


def figures_label(figures: RoundFigures) -> str:
    """A round's contender in full, as the glossary writes a configuration: 'CPU fp32 batch 1 2 streams x 4
    requests', 'CPU batch 1 OpenVINO default (2 x 2)'."""
    k = figures.contender
    return k.config.label() if k.config.explicit else f"{k.config.label()} ({cell_text(k.streams, k.nireq)})"


def baseline_label(p: PointResult | Contender) -> str:
    """A baseline by its one name, with what OpenVINO chose and, for "OpenVINO default", what precision it ran:
    'OpenVINO default (2 x 2, ran bf16)', 'THROUGHPUT hint, auto-batching off (1 x 4)'."""
    ran = p.compile.ran if p.config.mode is Mode.DEFAULT and p.compile is not None else None
    return p.config.short_label(p.streams, p.nireq, ran)


def round_label(figures: RoundFigures) -> str:
    """A round's contender in its table: '2 x 4', 'OpenVINO default (2 x 2, ran f32)', '1 x 1 (a hint's explicit
    twin)'."""
    k = figures.contender
    if not k.config.explicit:
        return baseline_label(figures.contender)
    return f"{k.label()} (a hint's explicit twin)" if k.twin else k.label()


def precision_cell(figures: RoundFigures) -> str:
    """The precision asked for; for "OpenVINO default", none was: '-'."""
    c = figures.contender.config
    return "-" if c.mode is Mode.DEFAULT else c.precision.value


DECIDING = {CostStep.REQUESTS: "the fewest requests in flight", CostStep.STREAMS: "then the fewest streams",
            CostStep.PRECISION: "then the most exact precision", CostStep.LATENCY: "then the lowest latency"}


def rule_text(rec: Recommendation) -> str:
    """The rule that chose the deployed configuration, as the report and `recommend --json` state it."""
    answer, percentile = rec.answer, rec.percentile
    if answer is None:
        return ("the most FPS as the search measured it, one point after another: not confirmed head to head "
                "(sweep with --confirm)")
    if answer.rule is Rule.ONLY:
        return "the only configuration confirmed head to head"
    if answer.rule is Rule.BASELINE:
        return "a baseline beat every explicit configuration beyond noise: deploy it, or widen the search"
    if answer.rule is Rule.FASTEST:
        return "the fastest: no other configuration is within noise of it"
    return (f"the cheapest of the {len(answer.near) + 1} configurations within noise of the fastest (the cheaper is "
            f"kept until the dearer is shown faster): fewest requests in flight (x batch), then fewest streams, then "
            f"the most exact precision, then the lowest {percentile_name(percentile)} latency")


def answer_text(answer: ConfirmedAnswer, percentile: int) -> str:
    """The round's verdict in one sentence: what to deploy and why."""
    home = answer.device
    deploy = figures_label(answer.deploy)
    if answer.rule is Rule.ONLY:
        verdict = f"{deploy} is the only configuration confirmed head to head"
    elif answer.rule is Rule.BASELINE:
        assert answer.runner_up is not None
        beaten = figures_label(answer.runner_up.figures)
        beat = f"{gain(answer.runner_up.ratio.reciprocal())} FPS over {beaten}"
        verdict = (f"{deploy} beats every explicit configuration the search measured: {beat}; deploy it, or widen the "
                   "search to its streams and requests")
    elif answer.rule is Rule.FASTEST:
        verdict = f"{deploy} is the fastest"
        if answer.runner_up is not None:
            verdict += (f": {gain(answer.runner_up.ratio.reciprocal())} FPS over "
                        f"{figures_label(answer.runner_up.figures)}")
    else:
        count = len(answer.near) + 1
        versus = next((s for s in answer.near if s.figures is answer.deploy), None)
        if versus is None:  # the fastest is also the cheapest
            verdict = (f"{deploy} is the fastest and the cheapest of the {count} configurations within noise of "
                       "it: deploy it")
        else:
            verdict = (f"{count} configurations are within noise of the fastest, "
                       f"{figures_label(answer.leader)}: deploy {deploy} ({gain_inline(versus.ratio)} "
                       f"against it), {DECIDING[answer.decided_by or CostStep.REQUESTS]}")
    return f"{home}: {verdict}{_unresolved(answer)}"


def _unresolved(answer: ConfirmedAnswer) -> str:
    """The contenders the round could not tell apart from the leader, though another beats them beyond noise."""
    if not answer.unresolved:
        return ""
    each = "; ".join(f"{figures_label(s.figures)}: {gain_inline(s.ratio)}" for s in answer.unresolved)
    leader = figures_label(answer.leader)
    return (f"; {len(answer.unresolved)} more could not be told apart from {leader} ({each}): more passes "
            "(--passes) or a quieter host would tell them apart")


def gain_text(s: Standing) -> str:
    """'+12.3% (95%: +4.1..+21.0%) FPS over OpenVINO default (2 x 2, ran f32), head to head', or 'no measurable
    difference from ...'."""
    name = baseline_label(s.figures.contender)
    if s.figures.contender.config.mode is Mode.DEFAULT:
        name += f" on {s.figures.contender.config.device}"
    if s.ratio.clear:
        return f"{gain(s.ratio)} FPS over {name}, head to head"
    settle = "" if s.settle is None else \
        f"; {settle_text(s.settle, ('pass', 'passes'), f'{s.settle.difference:.0%}')}"
    return f"no measurable difference from {name}: {gain(s.ratio)}, head to head{settle}"


def precision_ratio_text(r: PrecisionRatio) -> str:
    """'CPU bf16/fp32 at batch 1, best against best head to head (16 x 32 vs 16 x 32): 1.95x (95%: ...)'."""
    n, d = r.numerator.contender, r.denominator.contender
    return (f"{n.config.scope} {n.config.precision.value}/{d.config.precision.value} at batch {r.batch}, best against "
            f"best head to head ({n.label()} vs {d.label()}): {factor(r.ratio)}")


def recommendation_text(rec: Recommendation) -> str:
    """Why the recommended configuration wins, with its figures."""
    name = percentile_name(rec.percentile)
    budget = f" within {name} latency <= {rec.budget_ms:g} ms" if rec.budget_ms is not None else ""
    if rec.answer is not None:
        return (f"{answer_text(rec.answer, rec.percentile)}{';' if budget else ''}{budget}: {rec.fps:.1f} FPS at "
                f"{rec.answer.deploy.latency_ms(rec.percentile):.2f} ms {name}, head to head over "
                f"{rec.answer.deploy.windows} interleaved passes")
    winner = rec.winner
    scope = (f"the {rec.candidates} configurations with {name} latency <= {rec.budget_ms:g} ms"
             if rec.budget_ms is not None else f"all {rec.candidates} configurations")
    text = (f"{winner.config.label()} has the highest throughput of {scope}: {winner.fps:.1f} FPS at "
            f"{winner.latency_ms(rec.percentile):.2f} ms {name}")
    if rec.runner_up is not None:
        r = rec.runner_up
        text += (f"; runner-up {r.config.label()}: {r.fps:.1f} FPS ({signed(r.fps / winner.fps - 1, percent=True)}) at "
                 f"{r.latency_ms(rec.percentile):.2f} ms {name}")
    return text + " (measured one after another, not confirmed head to head)"


def baseline_gain_text(g: BaselineGain) -> str:
    """'+4.1% FPS over OpenVINO default (2 x 2, ran f32): 300 FPS, p90 6.10 ms, measured apart'."""
    base = g.baseline
    return (f"{signed(g.fps_gain, percent=True)} FPS over {baseline_label(base)}: {base.fps:.0f} FPS, p90 "
            f"{base.latency_ms(90):.2f} ms, measured apart")


def gain_lines(rec: Recommendation) -> list[str]:
    """The gain over each baseline (OpenVINO default first) and the precision ratios, each with its interval where a
    round confirmed them."""
    if rec.answer is None:
        return [baseline_gain_text(g) for g in rec.baselines]
    return ([gain_text(s) for s in rec.answer.gains]
            + [precision_ratio_text(r) for r in rec.answer.precision_ratios])
