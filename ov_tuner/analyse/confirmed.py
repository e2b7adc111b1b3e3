"""The answer a confirmation round gives: what leads, what is tied with it within noise, what to deploy, and
every gain and precision ratio with its 95% interval.

Two configurations are tied when the 95% interval of their FPS ratio holds 1.0 and lies within TIE_MARGIN of
it: no difference is measurable and their equivalence is shown, as in a two one-sided test (Schuirmann,
1987). One whose interval holds 1.0 but reaches further is "not told apart": the round was too noisy to
say, and it does not compete for
deployment, so that a noisy round cannot send the answer to the edge of what it could not resolve. Among
the leader and the configurations tied with it, ov-tuner deploys the most exact precision (fp32, then
fp16, then bf16: no speed to gain, so keep the accuracy), and of those the lowest latency at the
percentile asked for.

The hint baselines are references (the gains are over them), not candidates: a tuner deploys an explicit
configuration, and one tied with a hint's choice is that choice spelled out. A hint baseline is deployed only
when it beats every explicit contender beyond noise: the search's space then missed what the hint found.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace

from ov_tuner.analyse.headtohead import HeadToHead, Ratio, RoundFigures
from ov_tuner.schema import Mode, PointConfig, Precision

EXACTNESS = (Precision.FP32, Precision.FP16, Precision.BF16)
# How close to 1.0 either side an FPS ratio's interval must lie for two configurations to count as tied.
TIE_MARGIN = 0.05


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
        return (f"{n.config.scope} {n.config.precision.value}/{d.config.precision.value} at batch {self.batch}, best "
                f"against best head to head ({n.label()} vs {d.label()}): {self.ratio.as_factor()}")


@dataclass(frozen=True)
class ConfirmedAnswer:
    """What one device's confirmation round says, within a latency budget."""

    device: str
    leader: RoundFigures
    deploy: RoundFigures
    tied: tuple[Standing, ...]  # each other contender tied with the leader, against the deployed one
    unresolved: tuple[Standing, ...]  # contenders not told apart from the leader, nor tied with it: against the leader
    runner_up: Standing | None  # the fastest contender clearly slower than the leader, against the leader
    gains: tuple[Standing, ...]  # the deployed configuration over each hint baseline of its precision and batch
    precision_ratios: tuple[PrecisionRatio, ...]
    candidates: int
    reason: str


def label(figures: RoundFigures, home: str | None = None) -> str:
    """'fp32 batch 1 2 x 4', or 'fp32 batch 1 THROUGHPUT hint (2 x 2)'; prefixed with its device (and --set
    properties) where that is not `home`."""
    c = figures.contender.config
    where = f"{c.scope} " if home is not None and c.scope != home else ""
    return f"{where}{c.precision.value} batch {c.batch} {figures.contender.label()}"


def confirmed_answer(head: HeadToHead, max_latency_ms: float | None = None, percentile: int = 90,
                     precision: Precision | None = None, device: str | None = None,
                     allowed: Collection[PointConfig] | None = None) -> ConfirmedAnswer | None:
    """The answer among the round's contenders of `precision` and `device` (any, when None) within the latency
    budget, and among `allowed` configurations where given; None when no contender is left."""
    pool = [f for f in head.figures
            if (allowed is None or f.contender.config in allowed)
            and (precision is None or f.contender.config.precision is precision)
            and (device is None or f.contender.config.device == device)
            and (max_latency_ms is None or f.latency_ms(percentile) <= max_latency_ms)]
    if not pool:
        return None
    candidates = _candidates(head, pool)
    leader = max(candidates, key=lambda f: f.fps)
    others = [Standing(f, head.ratio(f.contender, leader.contender)) for f in candidates if f is not leader]
    tied_with_leader = [s for s in others if tied(s.ratio)]
    unresolved = tuple(s for s in others if s.ratio.high >= 1 and s not in tied_with_leader)
    slower = sorted((s for s in others if s.ratio.high < 1), key=lambda s: -s.figures.fps)
    if not leader.contender.config.explicit:  # a hint beat every explicit configuration: name the best one
        explicit = [f for f in pool if f.contender.config.explicit]
        if explicit:
            best = max(explicit, key=lambda f: f.fps)
            slower = [Standing(best, head.ratio(best.contender, leader.contender))]
    deploy = min([leader, *(s.figures for s in tied_with_leader)], key=lambda f: (
        EXACTNESS.index(f.contender.config.precision), f.latency_ms(percentile)))
    tied_ones = tuple(Standing(f, head.ratio(f.contender, deploy.contender))
                      for f in [leader, *(s.figures for s in tied_with_leader)] if f is not deploy)
    gains = tuple(Standing(f, head.ratio(deploy.contender, f.contender)) for f in head.figures
                  if f is not deploy and not f.contender.config.explicit
                  and f.contender.config.heatmap_key == deploy.contender.config.heatmap_key)
    answer = ConfirmedAnswer(deploy.contender.config.scope, leader, deploy, tied_ones, unresolved,
                             slower[0] if slower else None, gains, precision_ratios(head), len(pool), "")
    return replace(answer, reason=_reason(answer, percentile))


def tied(ratio: Ratio) -> bool:
    """No measurable difference, and an interval within TIE_MARGIN of 1.0."""
    return not ratio.clear and ratio.low >= 1 - TIE_MARGIN and ratio.high <= 1 + TIE_MARGIN


def _candidates(head: HeadToHead, pool: list[RoundFigures]) -> list[RoundFigures]:
    """The explicit configurations of the pool, or the hint baselines that beat them all beyond noise."""
    explicit = [f for f in pool if f.contender.config.explicit]
    if not explicit:
        return pool
    best = max(explicit, key=lambda f: f.fps)
    faster_hints = [f for f in pool if not f.contender.config.explicit
                    and head.ratio(f.contender, best.contender).low > 1]
    return faster_hints or explicit


def precision_ratios(head: HeadToHead) -> tuple[PrecisionRatio, ...]:
    """Per device (with its --set properties) and batch, the best grid contender of each precision over the best
    fp32 one."""
    ratios = []
    grid = [f for f in head.figures if f.contender.config.mode is Mode.GRID]
    for scope, batch in sorted({(f.contender.config.scope, f.contender.config.batch) for f in grid}):
        best: dict[Precision, RoundFigures] = {}
        for f in grid:
            c = f.contender.config
            if (c.scope, c.batch) == (scope, batch) and (c.precision not in best or f.fps > best[c.precision].fps):
                best[c.precision] = f
        if Precision.FP32 not in best:
            continue
        for numerator in (Precision.FP16, Precision.BF16):
            if numerator in best:
                ratio = head.ratio(best[numerator].contender, best[Precision.FP32].contender)
                ratios.append(PrecisionRatio(batch, best[numerator], best[Precision.FP32], ratio))
    return tuple(ratios)


def paired_cells(head: HeadToHead, scope: str, batch: int, numerator: Precision,
                 denominator: Precision) -> dict[tuple[int, int], Ratio]:
    """The streams x requests cells whose configuration was a contender in both precisions, with their ratio."""
    by_key: dict[tuple[Precision, int, int, object], RoundFigures] = {}
    for f in head.figures:
        c = f.contender.config
        if c.mode is Mode.GRID and c.batch == batch and c.scope == scope:
            by_key[(c.precision, c.streams, c.nireq, c.input_mode)] = f
    return {(streams, nireq): head.ratio(f.contender, by_key[(denominator, streams, nireq, mode)].contender)
            for (precision, streams, nireq, mode), f in by_key.items()
            if precision is numerator and (denominator, streams, nireq, mode) in by_key}


def _reason(answer: ConfirmedAnswer, percentile: int) -> str:
    return f"{answer.device}: {_verdict(answer, percentile)}{_unresolved(answer)}"


def _verdict(answer: ConfirmedAnswer, percentile: int) -> str:
    name = "median" if percentile == 50 else f"p{percentile}"

    def named(figures: RoundFigures) -> str:
        return label(figures, answer.device)

    deploy = named(answer.deploy)
    if not answer.tied:
        if answer.unresolved:
            return f"{deploy} ran the most FPS: deploy it"
        if answer.runner_up is None:
            return f"{deploy} is the only configuration confirmed head to head"
        gain = f"{answer.runner_up.ratio.reciprocal().as_gain()} FPS over {named(answer.runner_up.figures)}"
        if not answer.deploy.contender.config.explicit:
            return (f"{deploy} beats every explicit configuration the search measured: {gain}; deploy it, or widen "
                    "the search to its streams and requests")
        return f"{deploy} is the best: {gain}"
    if len(answer.tied) == 1:
        (other,) = answer.tied
        head = f"{deploy} and {named(other.figures)} are tied within noise ({other.ratio.as_gain_inline()})"
    else:
        each = "; ".join(f"{named(s.figures)}: {s.ratio.as_gain_inline()}" for s in answer.tied)
        head = f"{len(answer.tied) + 1} configurations are tied within noise (against {deploy}: {each})"
    mine = answer.deploy.contender.config.precision
    if any(EXACTNESS.index(s.figures.contender.config.precision) > EXACTNESS.index(mine) for s in answer.tied):
        same = any(s.figures.contender.config.precision is mine for s in answer.tied)
        why = f"the most exact precision{f', and of it the lowest {name} latency' if same else ''}"
    else:
        why = f"the one with the lowest {name} latency"
    return f"{head}: deploy {deploy}, {why}"


def _unresolved(answer: ConfirmedAnswer) -> str:
    """The contenders the round could not tell apart from the leader, nor show tied with it."""
    if not answer.unresolved:
        return ""
    each = "; ".join(f"{label(s.figures, answer.device)}: {s.ratio.as_gain_inline()}" for s in answer.unresolved)
    return (f"; the round could not tell {len(answer.unresolved)} more apart from "
            f"{label(answer.leader, answer.device)} ({each}): more passes (--confirm-rounds) or a quieter host would")
