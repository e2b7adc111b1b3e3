"""What to deploy under a latency budget: from the confirmation round where there is one, else from the search's
separate measurements. Figures only; ov_tuner.present words them and writes the deploy formats."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ov_tuner.analyse.accuracy import DEFAULT_LIMIT, AccuracyLimit, Breach, accuracy_key
from ov_tuner.analyse.accuracy import excluded as breaches
from ov_tuner.analyse.baselines import BaselineGain, baseline_gains
from ov_tuner.analyse.confirmed import ConfirmedAnswer, confirmed_answer
from ov_tuner.analyse.points import explicit_points, fastest
from ov_tuner.errors import Input, OvTunerError
from ov_tuner.schema import Confirmation, LatencyStats, PointResult, Precision
from ov_tuner.stats.headtohead import HeadToHead, Ratio
from ov_tuner.store.results import StoredResults

PERCENTILES = (50, 90, 99)


class NothingMeetsBudget(OvTunerError):
    """No measured configuration is fast enough for the latency budget."""


def percentile_name(percentile: int) -> str:
    return "median" if percentile == 50 else f"p{percentile}"


@dataclass(frozen=True)
class Recommendation:
    """The highest-throughput configuration within a latency budget, with the figures that make it win.

    `answer` is the confirmation round's verdict where one measured the candidates head to head (then `fps` and
    `latency` are the round's figures); otherwise the choice rests on the search's separate measurements, against
    the `runner_up` and the `baselines` measured apart.
    """

    winner: PointResult
    fps: float
    latency: LatencyStats
    runner_up: PointResult | None
    budget_ms: float | None
    percentile: int
    candidates: int
    baselines: tuple[BaselineGain, ...]
    answer: ConfirmedAnswer | None = None
    excluded: tuple[Breach, ...] = ()  # precisions left out for losing too much output accuracy
    held_back: HeldBack | None = None  # what would have been deployed without the accuracy limit

    @property
    def confirmed(self) -> bool:
        return self.answer is not None


@dataclass(frozen=True)
class HeldBack:
    """The configuration the answer would deploy without the accuracy limit, why it is not deployed, and its FPS
    over the deployed one: paired by pass where one round measured both (`ratio`), else measured apart."""

    winner: PointResult
    breach: Breach
    fps_ratio: float
    ratio: Ratio | None


def results_answer(results: StoredResults, limit: AccuracyLimit = DEFAULT_LIMIT, max_latency_ms: float | None = None,
                   percentile: int = 90, device: str | None = None, precision: Precision | None = None,
                   ) -> Recommendation:
    """What a results file answers: recommend over its points and rounds, under the accuracy `limit` (by default
    outputs close to FP32, and no INT8 IR calibrated on generated inputs)."""
    return recommend(points=results.points, max_latency_ms=max_latency_ms, percentile=percentile, device=device,
                     precision=precision, confirmations=results.confirmations,
                     excluded=accuracy_exclusions(results, limit))


def accuracy_exclusions(results: StoredResults, limit: AccuracyLimit = DEFAULT_LIMIT,
                        ) -> dict[tuple[str, Precision, int], Breach]:
    """The (device, precision, batch) combinations of a results file that `limit` holds back from deployment."""
    return breaches(results.accuracies, limit, results.quantization)


def recommend(points: list[PointResult], max_latency_ms: float | None = None, percentile: int = 90,
              device: str | None = None, precision: Precision | None = None,
              confirmations: Sequence[Confirmation] = (),
              excluded: Mapping[tuple[str, Precision, int], Breach] | None = None) -> Recommendation:
    """Most FPS within `max_latency_ms` at `percentile` (any latency, when None): from the latest confirmation
    round where there is one, else from the explicit points' own measurements. `excluded` (device, precision, batch)
    combinations, which lose too much output accuracy, are left out; the recommendation says which and why."""
    if percentile not in PERCENTILES:
        raise ValueError(f"percentile must be one of {PERCENTILES}")
    if excluded:
        kept = [p for p in points if accuracy_key(p) not in excluded]
        rec = recommend(kept, max_latency_ms, percentile, device, precision, confirmations)
        return replace(rec, excluded=tuple(excluded.values()),
                       held_back=_held_back(rec=rec, points=points, max_latency_ms=max_latency_ms,
                                            percentile=percentile, device=device, precision=precision,
                                            confirmations=confirmations, excluded=excluded))
    pool = [p for p in explicit_points(points)
            if (device is None or p.config.device == device) and (precision is None or p.config.precision is precision)]
    if not pool:
        scope = " ".join(x for x in (device, precision.value if precision else None) if x) or "these results"
        raise NothingMeetsBudget(f"no measured configuration for {scope}; check {Input.DEVICE}/{Input.PRECISION} "
                                 "against `ov-tuner show`")
    confirmed = _confirmed(points, max_latency_ms, percentile, device, precision, confirmations)
    if confirmed is not None:
        return confirmed
    name = percentile_name(percentile)
    within = [p for p in pool if max_latency_ms is None or p.latency_ms(percentile) <= max_latency_ms]
    if not within:
        quickest = min(pool, key=lambda p: p.latency_ms(percentile))
        raise NothingMeetsBudget(
            f"no configuration meets {name} latency <= {max_latency_ms:g} ms; the fastest is "
            f"{quickest.config.label()} at {quickest.latency_ms(percentile):.2f} ms {name} "
            f"({quickest.fps:.0f} FPS): raise {Input.LATENCY} or try a smaller batch"
        )
    winner = fastest(within)
    assert winner is not None and winner.measurement is not None
    runner_up = fastest(p for p in within if p is not winner)
    return Recommendation(winner=winner, fps=winner.fps, latency=winner.measurement.latency, runner_up=runner_up,
                          budget_ms=max_latency_ms, percentile=percentile, candidates=len(within),
                          baselines=tuple(baseline_gains(winner, points)))


def _held_back(rec: Recommendation, points: list[PointResult], max_latency_ms: float | None, percentile: int,
               device: str | None, precision: Precision | None, confirmations: Sequence[Confirmation],
               excluded: Mapping[tuple[str, Precision, int], Breach]) -> HeldBack | None:
    """The answer without the exclusions, where it is an excluded configuration: what the limit costs."""
    free = recommend(points, max_latency_ms, percentile, device, precision, confirmations)
    breach = excluded.get(accuracy_key(free.winner))
    if breach is None:
        return None
    ratio = None
    if free.answer is not None and rec.answer is not None:  # both from the latest round: paired by its passes
        head = HeadToHead.of(confirmations[-1])
        assert head is not None
        ratio = head.ratio(free.answer.deploy.contender, rec.answer.deploy.contender)
    return HeldBack(free.winner, breach, free.fps / rec.fps, ratio)


def _confirmed(points: list[PointResult], max_latency_ms: float | None, percentile: int, device: str | None,
               precision: Precision | None, confirmations: Sequence[Confirmation]) -> Recommendation | None:
    """The recommendation from the latest confirmation round (every device of a sweep meets in one), or None where
    no round covers a candidate within the budget."""
    allowed = {p.config for p in points}
    head = HeadToHead.of(confirmations[-1]) if confirmations else None
    answer = confirmed_answer(head, max_latency_ms, percentile, precision, device, allowed) if head is not None \
        else None
    if answer is None:
        return None
    winner = next((p for p in points if p.ok and p.config == answer.deploy.contender.config), None)
    if winner is None:
        return None
    return Recommendation(winner=winner, fps=answer.deploy.fps, latency=answer.deploy.latency, runner_up=None,
                          budget_ms=max_latency_ms, percentile=percentile, candidates=answer.candidates, baselines=(),
                          answer=answer)
