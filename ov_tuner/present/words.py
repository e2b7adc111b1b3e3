"""Words for what the library reports as data: a sweep's notices, precision choices, baselines' names.

The library returns figures and typed records; this module is where they become sentences, and where the CLI's
flags are named.
"""

from __future__ import annotations

from ov_tuner.analyse.baselines import BaselineGain, Inconsistency, Missed
from ov_tuner.analyse.confirmed import ConfirmedAnswer, PrecisionRatio, Rule, Standing, cost
from ov_tuner.analyse.hints import HintEffect
from ov_tuner.analyse.points import short_label
from ov_tuner.analyse.recommend import Recommendation, percentile_name
from ov_tuner.devices.decisions import PRECISION_CAPABILITY, Merged, MergeReason
from ov_tuner.devices.strings import ReadAs, Reading
from ov_tuner.schema import Mode
from ov_tuner.stats.headtohead import TIE_MARGIN, RoundFigures
from ov_tuner.sweep.notices import (
    ComparingOutputs,
    Confirming,
    HostBusy,
    Notice,
    OutputsNotCompared,
    PrecisionMerged,
    PrecisionsChosen,
    PrecisionSkipped,
    Resuming,
)


def _names(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def merged_text(merged: tuple[Merged, ...] | list[Merged]) -> str:
    """'bf16 and fp16 run f32 math on CPU (it lists no BF16, no FP16): measured as fp32'."""
    if not merged:
        return ""
    device = merged[0].device
    precisions = _names([m.precision.value for m in merged])
    reason = merged[0].reason
    verb = "runs" if len(merged) == 1 else "run"
    if reason is MergeReason.VIRTUAL:
        return (f"{device} is a virtual device: its members may run {precisions} differently, so auto sweeps fp32 "
                "there; name them with --precision to sweep them")
    if reason is MergeReason.NO_CAPABILITY:
        lacks = ", no ".join(PRECISION_CAPABILITY[m.precision] for m in merged)
        return f"{precisions} {verb} f32 math on {device} (it lists no {lacks}): measured as fp32"
    ran = _names(sorted({m.ran for m in merged}))
    return f"{precisions} {verb} {ran} on {device}, the same math as fp32 (read back after a compile): measured as fp32"


def reading_text(reading: Reading) -> str:
    """How a --device value was read, where that is worth saying."""
    devices = _names(list(reading.devices))
    if reading.why is ReadAs.TWICE:
        return f"--device {reading.written}: {devices} is named twice; swept once"
    if reading.why is ReadAs.BATCH_TAKES_ONE:
        return (f"--device {reading.written} read as {devices}: BATCH takes one device, so the names after it are "
                "devices of their own")
    return (f"--device {reading.written} read as {devices}: a virtual device takes every plain name after it; to "
            "sweep one of them on its own too, name it before the virtual device or in another --device")


def notice_text(notice: Notice) -> str:
    """One line for what a sweep reports as it goes."""
    if isinstance(notice, PrecisionSkipped):
        p = notice.precision.value
        return (f"{notice.device} {p}: its first compile failed ({notice.error}); the rest of {p} on {notice.device} "
                "is skipped: sweep without it (--precision) or fix the cause; --verbose shows OpenVINO's whole message")
    if isinstance(notice, PrecisionsChosen):
        swept = ", ".join(p.value for p in notice.swept)
        merged = merged_text(notice.merged)
        return f"--precision auto on {notice.device}: {swept}" + (f"; {merged}" if merged else "")
    if isinstance(notice, PrecisionMerged):
        return merged_text([notice.merged])
    if isinstance(notice, ComparingOutputs):
        return (f"comparing outputs with the FP32 reference (CPU, f32) on {notice.inputs} inputs at batch "
                f"{notice.batch}")
    if isinstance(notice, OutputsNotCompared):
        return f"{notice.device} {notice.precision.value}: outputs not compared: {notice.why}"
    if isinstance(notice, Confirming):
        return f"confirming {notice.configurations} configurations head to head"
    if isinstance(notice, HostBusy):
        return (f"the host is already busy: other processes used {notice.foreign_cpu:.0%} of the CPUs while the model "
                "was prepared; windows measured while that lasts are flagged and set aside")
    assert isinstance(notice, Resuming)
    return f"resuming: {notice.points} points already measured are kept"


# -- the answer ----------------------------------------------------------------------------------------------


def figures_label(figures: RoundFigures, home: str | None = None) -> str:
    """'fp32 batch 1 2 x 4', 'batch 1 OpenVINO default (2 x 2)'; prefixed with its device (and --set properties)
    where that is not `home`."""
    c = figures.contender.config
    where = f"{c.scope} " if home is not None and c.scope != home else ""
    precision = "" if c.mode is Mode.DEFAULT else f"{c.precision.value} "
    return f"{where}{precision}batch {c.batch} {figures.contender.label()}"


def baseline_name(figures: RoundFigures) -> str:
    """A baseline by its one name, with what OpenVINO chose and, for "OpenVINO default", what precision it ran:
    'OpenVINO default (2 x 2, ran bf16)', 'THROUGHPUT hint, auto-batching off (1 x 4)'."""
    k = figures.contender
    ran = f", ran {k.compile.ran}" if k.config.mode is Mode.DEFAULT and k.compile is not None else ""
    return f"{k.config.mode.hint_name} ({k.streams} x {k.nireq}{ran})"


def round_label(figures: RoundFigures) -> str:
    """A round's contender in its table: '2 x 4', 'OpenVINO default (2 x 2, ran f32)', '1 x 1 (a hint's explicit
    twin)'."""
    k = figures.contender
    if not k.config.explicit:
        return baseline_name(figures)
    return f"{k.label()} (a hint's explicit twin)" if k.twin else k.label()


def precision_cell(figures: RoundFigures) -> str:
    """The precision asked for; for "OpenVINO default", none was: '-'."""
    c = figures.contender.config
    return "-" if c.mode is Mode.DEFAULT else c.precision.value


def _deciding(answer: ConfirmedAnswer, percentile: int) -> str:
    """Which step of the cost order chose the deployed configuration over the next cheapest near one."""
    rivals = [answer.leader, *(s.figures for s in answer.near)]
    mine = cost(answer.deploy, percentile)
    others = sorted(cost(f, percentile) for f in rivals if f is not answer.deploy)
    if not others:
        return "the fewest requests in flight"
    steps = ("the fewest requests in flight", "then the fewest streams", "then the most exact precision",
             f"then the lowest {percentile_name(percentile)} latency")
    return next((step for step, a, b in zip(steps, mine, others[0], strict=True) if a != b), steps[-1])


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
        return f"the fastest: no other configuration is within noise and {TIE_MARGIN:.0%} of it"
    return (f"the cheapest of the {len(answer.near) + 1} configurations within noise and {TIE_MARGIN:.0%} of the "
            f"fastest: fewest requests in flight (x batch), then fewest streams, then the most exact precision, then "
            f"the lowest {percentile_name(percentile)} latency")


def answer_text(answer: ConfirmedAnswer, percentile: int) -> str:
    """The round's verdict in one sentence: what to deploy and why."""
    home = answer.device
    deploy = figures_label(answer.deploy, home)
    if answer.rule is Rule.ONLY:
        verdict = f"{deploy} is the only configuration confirmed head to head"
    elif answer.rule is Rule.BASELINE:
        assert answer.runner_up is not None
        beaten = figures_label(answer.runner_up.figures, home)
        gain = f"{answer.runner_up.ratio.reciprocal().as_gain()} FPS over {beaten}"
        verdict = (f"{deploy} beats every explicit configuration the search measured: {gain}; deploy it, or widen the "
                   "search to its streams and requests")
    elif answer.rule is Rule.FASTEST:
        verdict = f"{deploy} is the fastest"
        if answer.runner_up is not None:
            verdict += (f": {answer.runner_up.ratio.reciprocal().as_gain()} FPS over "
                        f"{figures_label(answer.runner_up.figures, home)}")
    else:
        count = len(answer.near) + 1
        versus = next((s for s in answer.near if s.figures is answer.deploy), None)
        if versus is None:  # the fastest is also the cheapest
            verdict = (f"{deploy} is the fastest and the cheapest of the {count} configurations within noise and "
                       f"{TIE_MARGIN:.0%} of it: deploy it")
        else:
            verdict = (f"{count} configurations are within noise and {TIE_MARGIN:.0%} of the fastest, "
                       f"{figures_label(answer.leader, home)}: deploy {deploy} ({versus.ratio.as_gain_inline()} "
                       f"against it), {_deciding(answer, percentile)}")
    return f"{home}: {verdict}{_unresolved(answer)}"


def _unresolved(answer: ConfirmedAnswer) -> str:
    """The contenders the round could not tell apart from the leader, though further from it than the margin."""
    if not answer.unresolved:
        return ""
    each = "; ".join(f"{figures_label(s.figures, answer.device)}: {s.ratio.as_gain_inline()}"
                     for s in answer.unresolved)
    leader = figures_label(answer.leader, answer.device)
    return (f"; {len(answer.unresolved)} more could not be told apart from {leader} ({each}): more passes "
            "(--confirm-rounds) or a quieter host would")


def gain_text(s: Standing) -> str:
    """'+12.3% (95%: +4.1..+21.0%) FPS over OpenVINO default (2 x 2, ran f32), head to head', or 'no measurable
    difference from ...'."""
    name = baseline_name(s.figures)
    if s.figures.contender.config.mode is Mode.DEFAULT:
        name += f" on {s.figures.contender.config.device}"
    if s.ratio.clear:
        return f"{s.ratio.as_gain()} FPS over {name}, head to head"
    return f"no measurable difference from {name}: {s.ratio.as_gain()}, head to head"


def precision_ratio_text(r: PrecisionRatio) -> str:
    """'CPU bf16/fp32 at batch 1, best against best head to head (16 x 32 vs 16 x 32): 1.95x (95%: ...)'."""
    n, d = r.numerator.contender, r.denominator.contender
    return (f"{n.config.scope} {n.config.precision.value}/{d.config.precision.value} at batch {r.batch}, best against "
            f"best head to head ({n.label()} vs {d.label()}): {r.ratio.as_factor()}")


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
        text += (f"; runner-up {r.config.label()}: {r.fps:.1f} FPS ({r.fps / winner.fps - 1:+.1%}) at "
                 f"{r.latency_ms(rec.percentile):.2f} ms {name}")
    return text + " (measured one after another, not confirmed head to head)"


def baseline_gain_text(g: BaselineGain) -> str:
    """'+4.1% FPS over OpenVINO default (2 x 2, ran f32; 300 FPS, p90 6.10 ms), measured apart'."""
    base = g.baseline
    ran = f", ran {base.compile.ran}" if base.config.mode is Mode.DEFAULT and base.compile is not None else ""
    return (f"{g.fps_gain:+.1%} FPS over {base.config.mode.hint_name} ({base.streams} x {base.nireq}{ran}; "
            f"{base.fps:.0f} FPS, p90 {base.latency_ms(90):.2f} ms), measured apart")


def gain_lines(rec: Recommendation) -> list[str]:
    """The gain over each baseline (OpenVINO default first) and the precision ratios, each with its interval where a
    round confirmed them."""
    if rec.answer is None:
        return [baseline_gain_text(g) for g in rec.baselines]
    return ([gain_text(s) for s in rec.answer.gains]
            + [precision_ratio_text(r) for r in rec.answer.precision_ratios])


def inconsistency_text(i: Inconsistency) -> str:
    """Why a baseline beat the best searched point, measured apart, and what to do."""
    base, best = i.baseline, i.best
    hint = f"{base.streams} x {base.nireq}"
    ran = f", ran {base.compile.ran}" if base.config.mode is Mode.DEFAULT and base.compile is not None else ""
    head = (f"{base.config.mode.hint_name} ({hint}{ran}) ran {base.fps:.0f} FPS, {base.fps / best.fps - 1:+.0%} over "
            f"the best searched point {best.config.precision.value} {short_label(best)} ({best.fps:.0f} FPS)")
    if i.missed is Missed.PRECISION:
        return (f"{head}: it runs a precision the sweep left out; sweep --precision auto, which adds every precision "
                "the device runs as math of its own")
    if i.missed is Missed.APART:
        assert i.twin is not None
        return (f"{head}; the same {hint} ran {i.twin.fps:.0f} FPS as an explicit configuration minutes apart, so the "
                "gap is the host's drift or what the hint sets besides streams: the head-to-head round tells which")
    if i.missed is Missed.NOT_MEASURED:
        return f"{head}; the search did not measure {hint}: rerun the sweep, it resumes and explores around it"
    return (f"{head}; the search space (streams {', '.join(map(str, i.streams))}; requests up to {max(i.nireqs)}) "
            f"missed {hint}: sweep with --streams auto --nireq auto, or include it")


def hint_effect_text(e: HintEffect) -> str:
    """'CPU fp32 batch 1 LATENCY hint (1 x 1) against the explicit 1 x 1: PERFORMANCE_HINT LATENCY vs THROUGHPUT;
    head to head: no measurable difference (1.01x, 95%: 0.93..1.09x)'."""
    differing = ", ".join(f"{k} {mine} vs {theirs}" for k, mine, theirs in e.differing)
    c = e.baseline.contender.config
    worth = (e.ratio.as_factor() if not e.ratio.clear
             else f"the hint runs {e.ratio.as_factor()} the FPS of the explicit configuration")
    return (f"{c.scope} {c.precision.value} batch {c.batch} {baseline_name(e.baseline)} against the explicit "
            f"{e.twin.contender.label()}: {differing}; head to head: {worth}")
