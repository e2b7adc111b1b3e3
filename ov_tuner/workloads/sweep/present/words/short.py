"""Words for the answer block: each row short enough to read at a glance on one screen of 100 columns (what to
deploy, its speed, its gain over OpenVINO left alone, why it was chosen, the one caveat, where the details are)."""

from __future__ import annotations

from pathlib import Path

from ov_tuner.analyse.answer import Answer
from ov_tuner.analyse.caveat import WIDE_SPAN, Caveat, CaveatKind
from ov_tuner.analyse.confirmed import CostStep, PrecisionRatio, Rule, Standing
from ov_tuner.analyse.recommend import HeldBack, Recommendation
from ov_tuner.present.words.devices import merged_text
from ov_tuner.present.words.numbers import factor, gain_inline, interval_text, signed
from ov_tuner.schema import Merged, Mode, PointResult, Precision, Quantization, cell_text
from ov_tuner.stats.headtohead import Ratio
from ov_tuner.workloads.sweep.present.words.accuracy import (
    accuracy_summary,
    breach_reason,
    breach_text,
    int8_trade_text,
)
from ov_tuner.workloads.sweep.present.words.answer import baseline_label, figures_label


def answer_rows(answer: Answer) -> list[tuple[str, str]]:
    """The answer's rows, label and words: deploy, speed, vs default, why, precision, int8, held back, excluded,
    caveat, details (those that have something to say)."""
    rec = answer.recommendation
    rows = [("deploy", configuration_text(rec.winner)), ("speed", speed_text(rec))]
    default = default_gain_text(rec)
    if default is not None:
        rows.append(("vs default", default))
    rows.append(("why", why_text(rec)))
    precision = precision_text(rec, list(answer.merged))
    if precision is not None:
        rows.append(("precision", precision))
    trade = answer.int8
    if trade is not None:
        rows.append(("int8", int8_trade_text(trade.against_fp32, trade.against_fastest_float, trade.accuracy,
                                             answer.quantization)))
    if rec.held_back is not None:
        rows.append(("held back", held_back_text(rec.held_back, answer.quantization, answer.results)))
    rows += [("excluded", breach_text(b)) for b in rec.excluded if rec.held_back is None or b != rec.held_back.breach]
    rows.append(("caveat", caveat_text(answer.caveat)))
    rows.append(("details", details_text(answer.results)))
    return rows


def configuration_text(p: PointResult) -> str:
    """The configuration in full, as the glossary writes it: 'CPU fp32 batch 1 2 streams x 4 requests'; a baseline
    with what OpenVINO chose: 'CPU batch 1 OpenVINO default (2 x 2, ran f32)'; a virtual device's point:
    'AUTO:GPU,CPU fp32 batch 1 CUMULATIVE_THROUGHPUT x 8 requests'."""
    c = p.config
    if c.explicit:
        return c.label()
    ran = p.compile.ran if c.mode is Mode.DEFAULT and p.compile is not None else None
    return f"{c.label()} ({cell_text(p.streams, p.nireq)}{f', ran {ran}' if ran else ''})"


def speed_text(rec: Recommendation) -> str:
    """'72.2 FPS, p90 38.6 ms, median 26.3 ms; head to head over 6 interleaved passes'."""
    lat = rec.latency
    head = f"{rec.fps:.1f} FPS, p90 {lat.p90:.3g} ms, median {lat.median:.3g} ms"
    if rec.answer is None:
        return f"{head}; measured one point after another, not confirmed head to head"
    return f"{head}; head to head over {rec.answer.deploy.windows} interleaved passes"


def default_gain_text(rec: Recommendation) -> str | None:
    """Its FPS over OpenVINO left alone: 'no measurable difference from OpenVINO default (2 x 2, ran f32): +0.7%, 95%:
    -8.3..+10.6%'; None where the round measured no such baseline."""
    if rec.answer is not None:
        found = next((s for s in rec.answer.gains if s.figures.contender.config.mode is Mode.DEFAULT), None)
        if found is None:
            return None
        name = baseline_label(found.figures.contender)
        tail = f"; {p90_text(found.p90)}" if found.p90 is not None else ""
        if found.ratio.clear:
            return f"{signed(found.ratio.value - 1, percent=True)} FPS over {name}, 95%: {_interval(found)}{tail}"
        return f"no measurable difference from {name}: {gain_inline(found.ratio)}{tail}"
    apart = next((g for g in rec.baselines if g.baseline.config.mode is Mode.DEFAULT), None)
    if apart is None:
        return None
    return f"{signed(apart.fps_gain, percent=True)} FPS over {apart.baseline.config.mode.hint_name}, measured apart"


def p90_text(r: Ratio) -> str:
    """'p90 latency -62.1% (95%: -70.2..-51.8%)', or 'p90 latency no different (+3.0%, 95%: -8.1..+15.5%)'."""
    if r.clear:
        return f"p90 latency {signed(r.value - 1, percent=True)} ({interval_text(r)})"
    return f"p90 latency no different ({gain_inline(r)})"


def _interval(s: Standing) -> str:
    return f"{signed((s.ratio.low - 1) * 100)}..{signed(s.ratio.high - 1, percent=True)}"


CHOSEN_BY = {CostStep.REQUESTS: "fewer requests in flight", CostStep.STREAMS: "as many requests, fewer streams",
             CostStep.PRECISION: "as cheap, a more exact precision", CostStep.LATENCY: "as cheap, a lower latency"}


def why_text(rec: Recommendation) -> str:
    """Why this one: 'the fastest: +12.0% (95%: ...) FPS over 1 x 2'; 'the cheapest of 3 within noise and 5% of the
    fastest (2 x 4: +1.3%, 95%: -8.1..+11.6%)'."""
    answer = rec.answer
    if answer is None:
        return "the most FPS as the search measured it"
    if answer.rule is Rule.ONLY:
        return "the only configuration confirmed head to head"
    if answer.rule is Rule.BASELINE:
        return "a baseline beat every explicit configuration the search measured beyond noise: widen the search"
    if answer.rule is Rule.FASTEST:
        if answer.runner_up is None:
            return "the fastest"
        ahead = answer.runner_up.ratio.reciprocal()
        return (f"the fastest: {signed(ahead.value - 1, percent=True)} FPS over "
                f"{figures_label(answer.runner_up.figures)} ({interval_text(ahead)})")
    count = f"{len(answer.near) + 1} within noise of the fastest"
    if answer.deploy is answer.leader:
        others = "; ".join(f"{figures_label(s.figures)}: {gain_inline(s.ratio)}" for s in answer.near)
        return f"the fastest, and the cheapest of the {count} ({others})"
    versus = next(s for s in answer.near if s.figures is answer.deploy)
    step = CHOSEN_BY[answer.decided_by or CostStep.REQUESTS]
    return (f"the cheapest of the {count}, {figures_label(answer.leader)} ({gain_inline(versus.ratio)} against "
            f"it): {step}")


def precision_text(rec: Recommendation, merged: list[Merged]) -> str | None:
    """What the precisions measured say: the deployed one against the others head to head, or which ran fp32's math
    and were measured as fp32."""
    answer = rec.answer
    mine = rec.winner.config
    ratios = [r for r in (answer.precision_ratios if answer else ())
              if r.numerator.contender.config.scope == mine.scope and r.batch == mine.batch
              and r.numerator.contender.config.precision is not r.denominator.contender.config.precision
              and Precision.INT8 not in (r.numerator.contender.config.precision,
                                         r.denominator.contender.config.precision)]  # the int8 row says those
    parts = [f"{r.numerator.contender.config.precision.value}/{r.denominator.contender.config.precision.value} "
             f"{factor(r.ratio)}" for r in ratios]
    if merged:
        parts.append(merged_text(merged))
    return "; ".join(parts) or None


def held_back_text(held: HeldBack, quantization: Quantization | None, path: Path) -> str:
    """What the accuracy limit costs, and how to get it back: 'CPU int8, 2 streams x 4 requests, batch 1 runs 1.31x FPS
    of the deployed (95%: 1.12..1.52x), head to head, but cosine 0.926 < 0.99 on 13 inputs; let NNCF keep the loss
    within a bound (--int8-max-drop 1), or deploy it anyway: ov-tuner recommend r.db --max-accuracy-loss none'."""
    c, r = held.winner.config, held.ratio
    pace = (f"{r.value:.2f}x FPS of the deployed (95%: {r.low:.2f}..{r.high:.2f}x), head to head" if r is not None
            else f"{held.fps_ratio:.2f}x FPS of the deployed, measured apart")
    if c.precision is not Precision.INT8:
        back = "loosen the limit (--max-accuracy-loss cosine=0.05,top1=5%)"
    elif quantization is not None and quantization.images:
        back = "let NNCF keep the loss within a bound (--int8-max-drop 1)"
    else:
        back = "calibrate on your own images (--images DIR), with --int8-max-drop 1 to bound the loss"
    return (f"{configuration_text(held.winner)} runs {pace}, but {breach_reason(held.breach)}; {back}, or deploy it "
            f"anyway: ov-tuner recommend {path} --max-accuracy-loss none")


def caveat_text(c: Caveat | None) -> str:
    """The one caveat that matters most, or none."""
    if c is None:
        return ("none: the round left no contender in doubt, no interval it states is wide, and the host was quiet "
                "enough")
    if c.kind is CaveatKind.NOT_CONFIRMED:
        return "not confirmed head to head: sweep with --confirm to measure the contenders interleaved"
    if c.kind is CaveatKind.BASELINE_WON:
        return "the search space missed what a baseline found: widen --streams/--nireq (or use auto)"
    if c.kind is CaveatKind.ACCURACY:
        assert c.accuracy is not None
        return f"{c.accuracy.precision.value} outputs against FP32: {accuracy_summary(c.accuracy)}"
    if c.kind is CaveatKind.WIDE:
        assert c.wide is not None
        wide = c.wide
        what = (f"{wide.numerator.contender.config.precision.value}/{wide.denominator.contender.config.precision.value}"
                if isinstance(wide, PrecisionRatio) else f"the gain over {figures_label(wide.figures)}")
        return (f"a wide interval: {what} {factor(wide.ratio)}, its ends more than {WIDE_SPAN:g}x apart; more passes "
                "(--passes) or a quieter host narrow it")
    if c.kind is CaveatKind.OPEN:
        return (f"{c.open_count} more could not be told apart from the fastest: more passes (--passes) or a "
                "quieter host would tell them apart")
    return f"a noisy host: windows varied by a median {c.median_cv:.0%} (CV); rerun when it is quieter"


def details_text(path: Path) -> str:
    """Where every figure is."""
    return f"ov-tuner show {path} (every point and figure); ov-tuner report {path} --out-dir report (figures)"
