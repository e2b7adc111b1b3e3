"""What to deploy under a latency budget: from the confirmation round where there is one, else from the search's
separate measurements. Figures only; ov_tuner.present words them and writes the deploy formats."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ov_tuner.analyse.accuracy import Breach
from ov_tuner.analyse.baselines import BaselineGain, baseline_gains
from ov_tuner.analyse.confirmed import ConfirmedAnswer, confirmed_answer
from ov_tuner.analyse.points import explicit_points, fastest
from ov_tuner.errors import OvTunerError
from ov_tuner.schema import Confirmation, LatencyStats, PointResult, Precision
from ov_tuner.stats.headtohead import HeadToHead

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

    @property
    def confirmed(self) -> bool:
        return self.answer is not None


def recommend(points: list[PointResult], max_latency_ms: float | None = None, percentile: int = 90,
              device: str | None = None, precision: Precision | None = None,
              confirmations: Sequence[Confirmation] = (),
              excluded: Mapping[tuple[str, Precision, int], Breach] | None = None) -> Recommendation:
    """Most FPS within `max_latency_ms` at `percentile` (any latency, when None): from the latest confirmation
    round where there is one, else from the explicit points' own measurements. `excluded` (device, precision, batch)
    combinations, which lose too much output accuracy, are left out; the recommendation says which and why."""
    if percentile not in PERCENTILES:
        raise ValueError(f"percentile must be one of {PERCENTILES}")
    excluded = excluded or {}
    points = [p for p in points if (p.config.device, p.config.precision, p.config.batch) not in excluded]
    pool = [p for p in explicit_points(points)
            if (device is None or p.config.device == device) and (precision is None or p.config.precision is precision)]
    if not pool:
        scope = " ".join(x for x in (device, precision.value if precision else None) if x) or "these results"
        raise NothingMeetsBudget(f"no measured configuration for {scope}; check --device/--precision "
                                 "against `ov-tuner show`")
    confirmed = _confirmed(points, max_latency_ms, percentile, device, precision, confirmations)
    if confirmed is not None:
        return replace(confirmed, excluded=tuple(excluded.values()))
    name = percentile_name(percentile)
    within = [p for p in pool if max_latency_ms is None or p.latency_ms(percentile) <= max_latency_ms]
    if not within:
        quickest = min(pool, key=lambda p: p.latency_ms(percentile))
        raise NothingMeetsBudget(
            f"no configuration meets {name} latency <= {max_latency_ms:g} ms; the fastest is "
            f"{quickest.config.label()} at {quickest.latency_ms(percentile):.2f} ms {name} "
            f"({quickest.fps:.0f} FPS): raise --max-latency or try a smaller batch"
        )
    winner = fastest(within)
    assert winner is not None and winner.measurement is not None
    runner_up = fastest(p for p in within if p is not winner)
    return Recommendation(winner, winner.fps, winner.measurement.latency, runner_up, max_latency_ms, percentile,
                          len(within), tuple(baseline_gains(winner, points)), None, tuple(excluded.values()))


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
    return Recommendation(winner, answer.deploy.fps, answer.deploy.latency, None, max_latency_ms, percentile,
                          answer.candidates, (), answer)
