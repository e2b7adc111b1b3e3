"""The answer a confirmation round gives: what leads, what is tied with it within noise, what to deploy, and
every gain and precision ratio with its 95% interval.

Among configurations tied with the leader (their ratio's interval holds 1.0), ov-tuner deploys the most
exact precision (fp32, then fp16, then bf16: no measurable speed difference, so keep the accuracy), and of
those the lowest latency at the percentile asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ov_tuner.analyse.headtohead import HeadToHead, Ratio, RoundFigures
from ov_tuner.schema import Mode, Precision

EXACTNESS = (Precision.FP32, Precision.FP16, Precision.BF16)


@dataclass(frozen=True)
class Standing:
    """A contender's round figures and its FPS ratio to a reference contender."""

    figures: RoundFigures
    ratio: Ratio


@dataclass(frozen=True)
class PrecisionRatio:
    """The best of one precision over the best of another, head to head, at one batch."""

    batch: int
    numerator: RoundFigures
    denominator: RoundFigures
    ratio: Ratio

    @property
    def reason(self) -> str:
        n, d = self.numerator.contender, self.denominator.contender
        return (f"{n.config.precision.value}/{d.config.precision.value} at batch {self.batch}, best against best "
                f"head to head ({n.label()} vs {d.label()}): {self.ratio.as_factor()}")


@dataclass(frozen=True)
class ConfirmedAnswer:
    """What one device's confirmation round says, within a latency budget."""

    device: str
    leader: RoundFigures
    deploy: RoundFigures
    tied: tuple[Standing, ...]  # each other contender not clearly slower than the leader, against the deployed one
    runner_up: Standing | None  # the fastest contender clearly slower than the leader, against the leader
    gains: tuple[Standing, ...]  # the deployed configuration over each hint baseline of its precision and batch
    precision_ratios: tuple[PrecisionRatio, ...]
    candidates: int
    reason: str


def label(figures: RoundFigures, with_precision: bool = True) -> str:
    """'fp32 batch 1 2 x 4', or 'fp32 batch 1 THROUGHPUT hint (2 x 2)'."""
    c = figures.contender
    head = f"{c.config.precision.value} batch {c.config.batch} " if with_precision else ""
    return head + c.label()


def confirmed_answer(head: HeadToHead, max_latency_ms: float | None = None, percentile: int = 90,
                     precision: Precision | None = None) -> ConfirmedAnswer | None:
    """The answer among the round's contenders of `precision` (any, when None) within the latency budget;
    None when no contender is within it."""
    pool = [f for f in head.figures
            if (precision is None or f.contender.config.precision is precision)
            and (max_latency_ms is None or f.latency_ms(percentile) <= max_latency_ms)]
    if not pool:
        return None
    leader = max(pool, key=lambda f: f.fps)
    others = [Standing(f, head.ratio(f.contender, leader.contender)) for f in pool if f is not leader]
    tied_with_leader = [s for s in others if s.ratio.high >= 1]
    slower = sorted((s for s in others if s.ratio.high < 1), key=lambda s: -s.figures.fps)
    deploy = min([leader, *(s.figures for s in tied_with_leader)], key=lambda f: (
        EXACTNESS.index(f.contender.config.precision), f.latency_ms(percentile)))
    tied = tuple(Standing(f, head.ratio(f.contender, deploy.contender))
                 for f in [leader, *(s.figures for s in tied_with_leader)] if f is not deploy)
    gains = tuple(Standing(f, head.ratio(deploy.contender, f.contender)) for f in head.figures
                  if f is not deploy and f.contender.config.mode is not Mode.GRID
                  and f.contender.config.heatmap_key == deploy.contender.config.heatmap_key)
    answer = ConfirmedAnswer(head.confirmation.device, leader, deploy, tied, slower[0] if slower else None, gains,
                             precision_ratios(head), len(pool), "")
    return replace(answer, reason=_reason(answer, percentile))


def precision_ratios(head: HeadToHead) -> tuple[PrecisionRatio, ...]:
    """Per batch, the best grid contender of each precision over the best fp32 one."""
    ratios = []
    grid = [f for f in head.figures if f.contender.config.mode is Mode.GRID]
    for batch in sorted({f.contender.config.batch for f in grid}):
        best: dict[Precision, RoundFigures] = {}
        for f in grid:
            c = f.contender.config
            if c.batch == batch and (c.precision not in best or f.fps > best[c.precision].fps):
                best[c.precision] = f
        if Precision.FP32 not in best:
            continue
        for numerator in (Precision.FP16, Precision.BF16):
            if numerator in best:
                ratio = head.ratio(best[numerator].contender, best[Precision.FP32].contender)
                ratios.append(PrecisionRatio(batch, best[numerator], best[Precision.FP32], ratio))
    return tuple(ratios)


def paired_cells(head: HeadToHead, batch: int, numerator: Precision,
                 denominator: Precision) -> dict[tuple[int, int], Ratio]:
    """The streams x requests cells whose configuration was a contender in both precisions, with their ratio."""
    by_key: dict[tuple[Precision, int, int, object], RoundFigures] = {}
    for f in head.figures:
        c = f.contender.config
        if c.mode is Mode.GRID and c.batch == batch:
            by_key[(c.precision, c.streams, c.nireq, c.input_mode)] = f
    return {(streams, nireq): head.ratio(f.contender, by_key[(denominator, streams, nireq, mode)].contender)
            for (precision, streams, nireq, mode), f in by_key.items()
            if precision is numerator and (denominator, streams, nireq, mode) in by_key}


def _reason(answer: ConfirmedAnswer, percentile: int) -> str:
    name = "median" if percentile == 50 else f"p{percentile}"
    deploy = label(answer.deploy)
    if not answer.tied:
        if answer.runner_up is None:
            return f"{answer.device}: {deploy} is the only configuration confirmed head to head"
        return (f"{answer.device}: {deploy} is the best: {answer.runner_up.ratio.reciprocal().as_gain()} FPS over "
                f"{label(answer.runner_up.figures)}")
    if len(answer.tied) == 1:
        (other,) = answer.tied
        head = f"{deploy} and {label(other.figures)} are tied within noise ({other.ratio.as_gain_inline()})"
    else:
        each = "; ".join(f"{label(s.figures)}: {s.ratio.as_gain_inline()}" for s in answer.tied)
        head = f"{len(answer.tied) + 1} configurations are tied within noise (against {deploy}: {each})"
    mine = answer.deploy.contender.config.precision
    if any(EXACTNESS.index(s.figures.contender.config.precision) > EXACTNESS.index(mine) for s in answer.tied):
        same = any(s.figures.contender.config.precision is mine for s in answer.tied)
        why = f"the most exact precision{f', and of it the lowest {name} latency' if same else ''}"
    else:
        why = f"the one with the lowest {name} latency"
    return f"{answer.device}: {head}: deploy {deploy}, {why}"
