"""Words for what the analysis found beside the answer: saturation, precision comparisons, virtual devices against
their members, a baseline that beat the search, what a hint sets besides streams, and files compared."""

from __future__ import annotations

from ov_tuner.analyse.baselines import Inconsistency, Missed
from ov_tuner.analyse.compare import BestElsewhere, Matched
from ov_tuner.analyse.hints import HintEffect
from ov_tuner.analyse.precisions import PrecisionComparison
from ov_tuner.analyse.saturation import Saturation
from ov_tuner.analyse.virtual import VirtualComparison
from ov_tuner.present.words.numbers import factor, signed
from ov_tuner.schema import PointResult, cell_text
from ov_tuner.workloads.sweep.present.words.answer import baseline_label


def short_label(p: PointResult) -> str:
    """'2 x 4', 'THROUGHPUT hint (2 x 2)' (PointConfig.short_label, with the streams and requests it ran)."""
    return p.config.short_label(p.streams, p.nireq)


def saturation_text(s: Saturation) -> str:
    """'CPU fp32 batch 1 saturates at 2 streams x 2 requests: 318 FPS; 2 x 4 adds +3.7% FPS for +97% p90 latency'."""
    point, beyond = s.point, s.beyond
    text = (f"{s.device} {s.precision.value} batch {s.batch} saturates at {point.config.streams} streams x "
            f"{point.config.nireq} requests: {point.fps:.0f} FPS")
    if beyond is not None:
        return (text + f"; {short_label(beyond)} adds {signed(beyond.fps / point.fps - 1, percent=True)} FPS "
                f"for {beyond.latency_ms(90) / point.latency_ms(90) - 1:+.0%} p90 latency")
    if s.measured == 1:
        return text + "; it is the only configuration measured"
    if s.at_most_streams:
        return (text + f"; {s.top_streams} streams is the {s.device}'s maximum, and it is the largest configuration "
                "measured: only more requests could still pay")
    return text + "; it is also the largest configuration measured, so more streams or requests may still pay"


def comparison_text(c: PrecisionComparison) -> str:
    """'CPU batch 1: fp16/fp32, best against best head to head: 1.01x (...)', or the ratio measured apart."""
    if c.confirmed is not None:
        return (f"{c.device} batch {c.batch}: {c.numerator.value}/{c.denominator.value}, best against best head to "
                f"head: {factor(c.confirmed)}")
    top, bottom = c.best
    return (f"{c.device} batch {c.batch}: best {c.numerator.value} {top.fps:.0f} FPS ({short_label(top)}) vs best "
            f"{c.denominator.value} {bottom.fps:.0f} FPS ({short_label(bottom)}): {c.best_fps_ratio:.2f}x, measured "
            "one after the other (not confirmed head to head)")


def comparison_notes(c: PrecisionComparison) -> list[str]:
    """'CPU fp16 ran f32 math, f16 weights': where a precision ran another than its name."""
    return [f"{c.device} {precision.value} ran {ran}" for precision, ran in c.ran]


def virtual_text(v: VirtualComparison) -> str:
    """'AUTO:GPU,CPU fp32 batch 1 CUMULATIVE_THROUGHPUT, 16 requests: 2270 FPS vs tuned GPU alone (2 x 4): 1200 FPS,
    head to head: 1.89x (...)'."""
    virtual, alone = v.virtual, v.member
    head = (f"{virtual.config.device} {virtual.config.precision.value} batch {virtual.config.batch} "
            f"{short_label(virtual)}: {v.fps[0]:.0f} FPS vs tuned {alone.config.device} alone "
            f"({short_label(alone)}): {v.fps[1]:.0f} FPS")
    if v.ratio is not None:
        return f"{head}, head to head: {factor(v.ratio)}"
    return f"{head}: {v.fps[0] / v.fps[1]:.2f}x, measured apart (not confirmed head to head)"


def best_elsewhere_text(b: BestElsewhere) -> str:
    """'file 1's best, CPU fp32 batch 1 2 streams x 4 requests, runs at 94% of file 2's best there (...)'."""
    head = f"file {b.file + 1}'s best, {b.best.config.label()}"
    if b.there is None:
        return f"{head}, was not measured in file {b.other + 1}"
    if b.still_best:
        return f"{head}, is the best in file {b.other + 1} too"
    share = b.there.fps / b.other_best.fps
    return (f"{head}, runs at {share:.0%} of file {b.other + 1}'s best there ({b.other_best.config.label()}, "
            f"{b.other_best.fps:.0f} FPS)")


def matched_label(m: Matched) -> str:
    """'CPU fp32 b1 2 x 4': a configuration measured in every file."""
    return f"{m.config.scope} {m.config.precision.value} b{m.config.batch} {short_label(m.points[0])}"


def difference_text(field: str, values: tuple[str, ...]) -> str:
    """'cpu_model: AMD EPYC | Intel Xeon'."""
    return f"{field}: " + " | ".join(values)


def inconsistency_text(i: Inconsistency) -> str:
    """Why a baseline beat the best searched point, measured apart, and what to do."""
    base, best = i.baseline, i.best
    hint = cell_text(base.streams, base.nireq)
    head = (f"{baseline_label(base)} ran {base.fps:.0f} FPS, {base.fps / best.fps - 1:+.0%} over "
            f"the best searched point {best.config.label()} ({best.fps:.0f} FPS)")
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
    worth = (factor(e.ratio) if not e.ratio.clear
             else f"the hint runs {factor(e.ratio)} the FPS of the explicit configuration")
    return (f"{c.scope} {c.precision.value} batch {c.batch} {baseline_label(e.baseline.contender)} against the "
            f"explicit {e.twin.contender.label()}: {differing}; head to head: {worth}")
