"""The answer a confirmation round gives: what leads, what is within noise of it, what to deploy and by which
rule, and every gain and precision ratio with its 95% interval (ov_tuner.stats.headtohead).

Deploying must not follow the noise. The leader is the explicit configuration with the most FPS. Those whose
interval against it holds 1.0, and that no contender beats beyond noise, are *near* it; among the leader and the
near ones, ov-tuner deploys the cheapest (Rule.CHEAPEST): the fewest frames in flight (requests x batch), then the
fewest streams, then the most exact precision (fp32, fp16, bf16), then the lowest latency at the percentile asked
for. The cheaper is kept until the dearer is shown faster: no point estimate decides, so no margin on one flips the
answer between runs (a 5% margin on the point estimates did: 2 x 2 at 0.95 of 2 x 4 was deployed in one run and
not in the next). The price is stated, the deployed configuration's ratio to the leader with its interval. One
within noise of the leader that another contender beats beyond noise is *not told apart* from the leader: named,
never deployed.

The hint baselines and "OpenVINO default" are references (the gains are over them, OpenVINO default first),
not candidates: a tuner deploys an explicit configuration, and one within noise of a hint's choice is that
choice spelled out. A baseline is deployed only when it beats every explicit contender beyond noise
(Rule.BASELINE), and no configuration a baseline beats beyond noise is deployed.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from enum import Enum

from ov_tuner.schema import Mode, PointConfig, Precision
from ov_tuner.stats.headtohead import TIE_MARGIN, HeadToHead, Ratio, RoundFigures, rerun_floor
from ov_tuner.stats.settle import Settling, settling

EXACTNESS = (Precision.FP32, Precision.FP16, Precision.BF16, Precision.INT8)
# The order the gains over the baselines are stated in: what OpenVINO does left alone first.
BASELINE_ORDER = (Mode.DEFAULT, Mode.THROUGHPUT, Mode.THROUGHPUT_UNBATCHED, Mode.CUMULATIVE_THROUGHPUT, Mode.LATENCY)


class CostStep(str, Enum):
    """Which step of the cost order chose the deployed configuration over the next cheapest near the leader."""

    REQUESTS = "requests"  # fewer frames in flight (requests x batch)
    STREAMS = "streams"
    PRECISION = "precision"  # the more exact precision
    LATENCY = "latency"  # the lower latency at the percentile asked for


class Rule(str, Enum):
    """How the deployed configuration was chosen among the round's contenders."""

    ONLY = "only"  # one configuration was confirmed
    FASTEST = "fastest"  # the leader: nothing else lies within noise of it
    CHEAPEST = "cheapest"  # the cheapest of those within noise of the leader that nothing beats beyond noise
    BASELINE = "baseline"  # a hint baseline (or OpenVINO default) beat every explicit configuration beyond noise


@dataclass(frozen=True)
class Standing:
    """A contender's round figures and its FPS ratio to a reference contender."""

    figures: RoundFigures
    ratio: Ratio
    p90: Ratio | None = None  # p90 latency against the reference's, where stated (the gains over baselines)
    settle: Settling | None = None  # a gain over a baseline not told apart: what more passes would settle


@dataclass(frozen=True)
class PrecisionRatio:
    """The best of one precision over the best of another, head to head, at one batch."""

    batch: int
    numerator: RoundFigures
    denominator: RoundFigures
    ratio: Ratio


@dataclass(frozen=True)
class ConfirmedAnswer:
    """What one confirmation round says, within a latency budget: the figures a verdict is worded from."""

    device: str  # the deployed configuration's device (with its --set properties)
    leader: RoundFigures
    deploy: RoundFigures
    rule: Rule
    near: tuple[Standing, ...]  # within noise of the leader, beaten by none (the deployed one among them): vs leader
    unresolved: tuple[Standing, ...]  # within noise of the leader but beaten beyond noise by another: vs the leader
    runner_up: Standing | None  # the fastest contender clearly slower than the leader, against the leader
    gains: tuple[Standing, ...]  # the deployed configuration over each baseline, OpenVINO default first
    precision_ratios: tuple[PrecisionRatio, ...]
    candidates: int
    decided_by: CostStep | None = None  # Rule.CHEAPEST: the step of the cost order that chose


def cost(figures: RoundFigures, percentile: int) -> tuple[int, int, int, float]:
    """What a configuration costs, least first: frames in flight (requests x batch), streams, how far from fp32
    its precision is, latency at `percentile`."""
    c = figures.contender
    return (c.nireq * c.config.batch, c.streams, EXACTNESS.index(c.config.precision), figures.latency_ms(percentile))


def confirmed_answer(head: HeadToHead, max_latency_ms: float | None = None, percentile: int = 90,
                     precision: Precision | None = None, device: str | None = None,
                     allowed: Collection[PointConfig] | None = None) -> ConfirmedAnswer | None:
    """The answer among the round's contenders of `precision` and `device` (any, when None) within the latency
    budget, and among `allowed` configurations where given; None when no contender is left."""
    pool = [f for f in head.figures
            if not f.contender.twin and (allowed is None or f.contender.config in allowed)
            and (precision is None or f.contender.config.precision is precision)
            and (device is None or f.contender.config.device == device)
            and (max_latency_ms is None or f.latency_ms(percentile) <= max_latency_ms)]
    if not pool:
        return None
    candidates, beaten_by_baseline = _candidates(head, pool)
    leader = max(candidates, key=lambda f: f.fps)
    others = [Standing(f, head.ratio(f.contender, leader.contender)) for f in candidates if f is not leader]
    within = [s for s in others if not s.ratio.clear]
    near = tuple(s for s in within if not _beaten(head, s.figures, pool))
    slower = sorted((s for s in others if s.ratio.high < 1), key=lambda s: -s.figures.fps)
    if beaten_by_baseline:  # name the best explicit configuration the baseline beat
        explicit = max((f for f in pool if f.contender.config.explicit), key=lambda f: f.fps)
        slower = [Standing(explicit, head.ratio(explicit.contender, leader.contender))]
    deploy = min([leader, *(s.figures for s in near)], key=lambda f: cost(f, percentile))
    rule = (Rule.BASELINE if beaten_by_baseline else Rule.CHEAPEST if near
            else Rule.ONLY if len(candidates) == 1 else Rule.FASTEST)
    return ConfirmedAnswer(device=deploy.contender.config.scope, leader=leader, deploy=deploy, rule=rule, near=near,
                           unresolved=tuple(s for s in within if s not in near),
                           runner_up=slower[0] if slower else None, gains=_gains(head, deploy),
                           precision_ratios=precision_ratios(head), candidates=len(pool),
                           decided_by=_decided_by([leader, *(s.figures for s in near)], deploy, percentile))


def _decided_by(rivals: list[RoundFigures], deploy: RoundFigures, percentile: int) -> CostStep | None:
    """The first step of the cost order where the deployed configuration beats the next cheapest rival."""
    others = sorted(cost(f, percentile) for f in rivals if f is not deploy)
    if not others:
        return None
    mine = cost(deploy, percentile)
    return next((step for step, a, b in zip(CostStep, mine, others[0], strict=True) if a != b), CostStep.LATENCY)


def _candidates(head: HeadToHead, pool: list[RoundFigures]) -> tuple[list[RoundFigures], bool]:
    """The explicit configurations of the pool, or the baselines that beat them all beyond noise (and whether
    that happened)."""
    explicit = [f for f in pool if f.contender.config.explicit]
    if not explicit:
        return pool, False
    best = max(explicit, key=lambda f: f.fps)
    faster = [f for f in pool if not f.contender.config.explicit and head.ratio(f.contender, best.contender).low > 1]
    return (faster, True) if faster else (explicit, False)


def _beaten(head: HeadToHead, figures: RoundFigures, pool: list[RoundFigures]) -> bool:
    """Whether a contender of the pool (a baseline included) beats `figures` beyond noise: then it is not deployed."""
    return any(head.ratio(f.contender, figures.contender).low > 1 for f in pool if f is not figures)


def _gains(head: HeadToHead, deploy: RoundFigures) -> tuple[Standing, ...]:
    """The deployed configuration over the baselines of its precision and batch, and over "OpenVINO default" at its
    batch on every device (its own device first), in BASELINE_ORDER."""
    mine = deploy.contender.config

    def relevant(f: RoundFigures) -> bool:
        c = f.contender.config
        if c.explicit or f is deploy:
            return False
        if c.mode is Mode.DEFAULT:
            return (c.batch, c.input_mode) == (mine.batch, mine.input_mode)
        return (c.heatmap_key, c.input_mode) == (mine.heatmap_key, mine.input_mode)

    chosen = sorted((f for f in head.figures if relevant(f)), key=lambda f: (
        BASELINE_ORDER.index(f.contender.config.mode), f.contender.config.device != mine.device))
    return tuple(Standing(f, ratio, head.p90_ratio(deploy.contender, f.contender),
                          settling(ratio.value, ratio.low, ratio.high, ratio.passes,
                                   head.visit_seconds(deploy.contender) + head.visit_seconds(f.contender), TIE_MARGIN,
                                   log=True, floor=rerun_floor(ratio.confidence)))
                 for f in chosen for ratio in (head.ratio(deploy.contender, f.contender),))


def precision_ratios(head: HeadToHead) -> tuple[PrecisionRatio, ...]:
    """Per device (with its --set properties) and batch, the best grid contender of each precision over the best
    fp32 one, and over the best of the fastest precision where that is another; int8 also over each float precision
    (it has to beat the fastest float one, which is not the fastest overall where int8 is)."""
    ratios = []
    grid = [f for f in head.figures if f.contender.config.mode is Mode.EXPLICIT and not f.contender.twin]
    for scope, batch in sorted({(f.contender.config.scope, f.contender.config.batch) for f in grid}):
        best: dict[Precision, RoundFigures] = {}
        for f in grid:
            c = f.contender.config
            if (c.scope, c.batch) == (scope, batch) and (c.precision not in best or f.fps > best[c.precision].fps):
                best[c.precision] = f
        fastest = max(best, key=lambda p: best[p].fps)
        for numerator in (p for p in EXACTNESS if p in best):
            floats = (Precision.FP16, Precision.BF16) if numerator is Precision.INT8 else ()
            for denominator in dict.fromkeys((Precision.FP32, fastest, *floats)):
                if denominator in best and denominator is not numerator:
                    ratio = head.ratio(best[numerator].contender, best[denominator].contender)
                    ratios.append(PrecisionRatio(batch, best[numerator], best[denominator], ratio))
    return tuple(ratios)


def paired_cells(head: HeadToHead, scope: str, batch: int, numerator: Precision,
                 denominator: Precision) -> dict[tuple[int, int], Ratio]:
    """The streams x requests cells whose configuration was a contender in both precisions, with their ratio."""
    by_key: dict[tuple[Precision, int, int, object], RoundFigures] = {}
    for f in head.figures:
        c = f.contender.config
        if c.mode is Mode.EXPLICIT and not f.contender.twin and c.batch == batch and c.scope == scope:
            by_key[(c.precision, c.streams, c.nireq, c.input_mode)] = f
    return {(streams, nireq): head.ratio(f.contender, by_key[(denominator, streams, nireq, mode)].contender)
            for (precision, streams, nireq, mode), f in by_key.items()
            if precision is numerator and (denominator, streams, nireq, mode) in by_key}
