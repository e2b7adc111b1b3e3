"""Pure functions over stored points that answer "what should I deploy, and why".

Thresholds are named constants; every answer carries the figures behind it in a `reason`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from ov_tuner.analyse.confirmed import paired_cells, precision_ratios
from ov_tuner.schema import Confirmation, DeviceInfo, Mode, PointResult, Precision
from ov_tuner.stats.evidence import Estimate, clearly_worse
from ov_tuner.stats.headtohead import HeadToHead, Ratio

# A configuration within this fraction of the best FPS counts as saturating the device:
# adding streams or requests beyond it buys less than this.
SATURATION_TOLERANCE = 0.05


def grid_points(points: Iterable[PointResult]) -> list[PointResult]:
    """Measured points of the configurations the tuner chose: streams x requests, or on a virtual device a hint
    with a request count (not the hint baselines)."""
    return [p for p in points if p.ok and p.config.explicit]


def baseline_points(points: Iterable[PointResult]) -> list[PointResult]:
    """Measured points where OpenVINO chose streams and requests under a performance hint."""
    return [p for p in points if p.ok and not p.config.explicit]


def _size(p: PointResult) -> tuple[int, int, int]:
    """Smaller configurations first: fewer streams, then fewer requests, then smaller batch."""
    return (p.config.streams, p.config.nireq, p.config.batch)


def fastest(points: Iterable[PointResult]) -> PointResult | None:
    """The point with the most FPS; a tie goes to the smaller configuration."""
    return max(points, key=lambda p: (p.fps, tuple(-v for v in _size(p))), default=None)


def short_label(p: PointResult) -> str:
    """'2 x 4', 'THROUGHPUT hint (2 x 2)' (PointConfig.short_label, with the streams and requests it ran)."""
    return p.config.short_label(p.streams, p.nireq)


@dataclass(frozen=True)
class Best:
    """The highest-throughput grid point of a (device, precision) pair."""

    device: str
    precision: Precision
    point: PointResult

    @property
    def fps(self) -> float:
        return self.point.fps


def best_per_device_precision(points: list[PointResult]) -> list[Best]:
    """For each (device with its --set properties, precision), the grid point with the most FPS (ties: the smaller
    configuration)."""
    groups: dict[tuple[str, Precision], list[PointResult]] = {}
    for p in grid_points(points):
        groups.setdefault((p.config.scope, p.config.precision), []).append(p)
    result = []
    for (device, precision), members in sorted(groups.items()):
        winner = fastest(members)
        assert winner is not None
        result.append(Best(device, precision, winner))
    return result


# -- heatmaps ---------------------------------------------------------------------------------------


class Metric(str, Enum):
    """A quantity drawn per heatmap cell, and whether bigger is better."""

    FPS = "fps"
    LATENCY_MEDIAN = "latency_median"
    LATENCY_P90 = "latency_p90"

    @property
    def higher_is_better(self) -> bool:
        return self is Metric.FPS

    @property
    def heading(self) -> str:
        return {"fps": "Throughput (FPS)", "latency_median": "Median latency (ms)",
                "latency_p90": "p90 latency (ms)"}[self.value]

    def of(self, p: PointResult) -> float:
        if self is Metric.FPS:
            return p.fps
        return p.latency_ms(50 if self is Metric.LATENCY_MEDIAN else 90)


@dataclass(frozen=True)
class HeatmapGrid:
    """Values of one metric for streams (rows) x nireq (columns); NaN where a point failed or is missing."""

    streams: tuple[int, ...]
    nireqs: tuple[int, ...]
    values: np.ndarray
    failed: np.ndarray

    def cell(self, p: PointResult) -> tuple[int, int]:
        return (self.streams.index(p.config.streams), self.nireqs.index(p.config.nireq))


def heatmap_grid(points: list[PointResult], device: str, precision: Precision, batch: int,
                 metric: Metric) -> HeatmapGrid:
    selected = [p for p in points
                if p.config.mode is Mode.GRID and p.config.heatmap_key == (device, precision, batch)]
    streams = tuple(sorted({p.config.streams for p in selected}))
    nireqs = tuple(sorted({p.config.nireq for p in selected}))
    values = np.full((len(streams), len(nireqs)), np.nan)
    failed = np.zeros_like(values, dtype=bool)
    grid = HeatmapGrid(streams, nireqs, values, failed)
    for p in selected:
        if p.ok:
            values[grid.cell(p)] = metric.of(p)
        else:
            failed[grid.cell(p)] = True
    return grid


def heatmap_groups(points: list[PointResult]) -> list[tuple[str, Precision, int]]:
    """Each (device, precision, batch) that has grid points, in sweep order."""
    return sorted({p.config.heatmap_key for p in points if p.config.mode is Mode.GRID})


# -- saturation -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Saturation:
    """Where adding streams or requests stops paying for one (device, precision, batch)."""

    device: str
    precision: Precision
    batch: int
    point: PointResult
    best: PointResult
    beyond: PointResult | None
    reason: str


def saturation(points: list[PointResult], tolerance: float = SATURATION_TOLERANCE,
               devices: Mapping[str, DeviceInfo] | None = None) -> list[Saturation]:
    """Per (device, precision, batch): the smallest configuration within `tolerance` of the best FPS.

    It is compared with the best point when that is bigger, else with the biggest configuration
    measured, so the statement says what going further costs in p90 latency. Where the best runs the
    most streams the device allows (`devices` says), the statement says so instead of "more may pay".
    """
    result = []
    for device, precision, batch in heatmap_groups(points):
        members = sorted((p for p in grid_points(points) if p.config.heatmap_key == (device, precision, batch)),
                         key=_size)
        best = fastest(members)
        if best is None:
            continue
        point = next(p for p in members if p.fps >= (1 - tolerance) * best.fps)
        beyond = best if best is not point else (members[-1] if members[-1] is not point else None)
        reason = (f"{device} {precision.value} batch {batch} saturates at {point.config.streams} streams x "
                  f"{point.config.nireq} requests: {point.fps:.0f} FPS")
        info = (devices or {}).get(device)
        top = info.streams_range[1] if info is not None and info.streams_range else None
        if beyond is not None:
            reason += (f"; {beyond.config.streams} x {beyond.config.nireq} adds {beyond.fps / point.fps - 1:+.1%} FPS "
                       f"for {beyond.latency_ms(90) / point.latency_ms(90) - 1:+.0%} p90 latency")
        elif len(members) == 1:
            reason += "; it is the only configuration measured"
        elif top is not None and point.streams >= top:
            reason += (f"; {top} streams is the {device}'s maximum, and it is the largest configuration measured: "
                       "only more requests could still pay")
        else:
            reason += "; it is also the largest configuration measured, so more streams or requests may still pay"
        result.append(Saturation(device, precision, batch, point, best, beyond, reason))
    return result


# -- consistency ------------------------------------------------------------------------------------


class Missed(str, Enum):
    """Why a baseline beat the best searched point beyond noise."""

    OUTSIDE_SPACE = "outside_space"  # the streams x requests it ran lie outside the searched space
    NOT_MEASURED = "not_measured"  # inside the space, but the search did not measure them
    APART = "apart"  # the search measured them too, minutes apart: drift, or what the hint sets besides streams
    PRECISION = "precision"  # OpenVINO default beat every precision swept: it runs one the sweep left out


@dataclass(frozen=True)
class Inconsistency:
    """A baseline that beat the best searched point of its device, precision and batch beyond noise (for "OpenVINO
    default": of its device and batch, any precision), measured apart; `twin` is the explicit point of the same
    streams x requests where the search measured it."""

    baseline: PointResult
    best: PointResult
    missed: Missed
    streams: tuple[int, ...]  # the streams and requests the search had
    nireqs: tuple[int, ...]
    twin: PointResult | None = None


def inconsistencies(points: list[PointResult]) -> list[Inconsistency]:
    """Every baseline faster than the best searched point it answers for beyond noise, and why: the searched
    streams and requests did not reach the hint's, the two were measured apart, or the precision differs."""
    found = []
    for base in baseline_points(points):
        c = base.config
        default = c.mode is Mode.DEFAULT
        members = [p for p in grid_points(points) if p.config.input_mode is c.input_mode and p.config.settings == ()
                   and (p.config.device, p.config.batch) == (c.device, c.batch)] if default else \
            [p for p in grid_points(points) if p.config.heatmap_key == c.heatmap_key
             and p.config.input_mode is c.input_mode]
        best = fastest(members)
        if best is None or not _beats(base, best):
            continue
        streams = tuple(sorted({p.config.streams for p in members}))
        nireqs = tuple(sorted({p.config.nireq for p in members}))
        twin = next((p for p in members if (p.config.streams, p.config.nireq) == (base.streams, base.nireq)
                     and p.config.precision is c.precision), None)
        if default:
            missed = Missed.PRECISION
        elif twin is not None:
            missed = Missed.APART
        elif base.streams in streams and base.nireq <= max(nireqs):
            missed = Missed.NOT_MEASURED
        else:
            missed = Missed.OUTSIDE_SPACE
        found.append(Inconsistency(base, best, missed, streams, nireqs, twin))
    return found


def _beats(a: PointResult, b: PointResult) -> bool:
    """`a` is faster than `b` beyond noise, judged as the search judges (ov_tuner.stats.evidence)."""
    assert a.measurement is not None and b.measurement is not None
    if not a.measurement.windows or not b.measurement.windows:
        return False
    return clearly_worse(Estimate.of(b.measurement.windows), Estimate.of(a.measurement.windows))


# -- Pareto front -----------------------------------------------------------------------------------


def pareto_front(points: list[PointResult], percentile: int = 90) -> list[PointResult]:
    """Measured points that no other point beats on both FPS and latency, by rising latency."""
    measured = sorted((p for p in points if p.ok), key=lambda p: (p.latency_ms(percentile), -p.fps))
    front: list[PointResult] = []
    for p in measured:
        if not front or p.fps > front[-1].fps:
            front.append(p)
    return front


# -- precision comparison ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PrecisionComparison:
    """FPS and p90 latency of one precision over another, per streams x nireq cell, for a device and batch.

    The cells compare points measured one after another in the search; `confirmed` is the best-to-best ratio
    measured head to head in the confirmation round, and `paired` its cells that were measured head to head in
    both precisions, each with its ratio.
    """

    device: str
    batch: int
    numerator: Precision
    denominator: Precision
    fps_ratio: HeatmapGrid
    latency_ratio: HeatmapGrid
    best_fps_ratio: float
    notes: tuple[str, ...]
    reason: str
    confirmed: Ratio | None = None
    paired: dict[tuple[int, int], Ratio] = field(default_factory=dict)


def ran_in(points: list[PointResult], device: str, precision: Precision, batch: int) -> set[str]:
    """What ran (CompileInfo.ran) for every compile of a (device, precision, batch)."""
    return {p.compile.ran for p in points
            if p.compile is not None and p.config.heatmap_key == (device, precision, batch)}


def ran_by_scope(points: list[PointResult]) -> dict[tuple[str, Precision, int], str]:
    """What ran for each (device, precision, batch), in CompileInfo.ran's words."""
    keys = {(p.config.device, p.config.precision, p.config.batch) for p in points if p.compile is not None}
    return {k: ", ".join(sorted(ran_in(points, *k))) for k in keys}


def compare_precisions(points: list[PointResult], numerator: Precision = Precision.FP16,
                       denominator: Precision = Precision.FP32,
                       confirmations: Sequence[Confirmation] = ()) -> list[PrecisionComparison]:
    """For each (device, batch) measured in both precisions: the cell-by-cell ratios and an honest note.

    A note is added wherever the device ran another precision than the one named, since then the ratio
    compares what ran, not what was asked. Where a confirmation round measured both precisions' best head
    to head, its ratio, with its interval, is the comparison's answer.
    """
    result = []
    keys = {(d, b) for d, pr, b in heatmap_groups(points) if pr is numerator}
    keys &= {(d, b) for d, pr, b in heatmap_groups(points) if pr is denominator}
    head = HeadToHead.of(confirmations[-1]) if confirmations else None
    for device, batch in sorted(keys):
        grids = {}
        for metric in (Metric.FPS, Metric.LATENCY_P90):
            top = heatmap_grid(points, device, numerator, batch, metric)
            bottom = heatmap_grid(points, device, denominator, batch, metric)
            grids[metric] = _ratio_grid(top, bottom)
        best_top = fastest(p for p in grid_points(points) if p.config.heatmap_key == (device, numerator, batch))
        best_bottom = fastest(p for p in grid_points(points) if p.config.heatmap_key == (device, denominator, batch))
        assert best_top is not None and best_bottom is not None
        ratio = best_top.fps / best_bottom.fps
        notes = [f"{device} {precision.value} ran {', '.join(sorted(ran))}" for precision in (numerator, denominator)
                 if (ran := ran_in(points, device, precision, batch)) != {precision.hint}]
        confirmed = next((r.ratio for r in precision_ratios(head)
                          if (r.numerator.contender.config.scope, r.batch, r.numerator.contender.config.precision,
                              r.denominator.contender.config.precision) == (device, batch, numerator, denominator)),
                         None) if head else None
        if confirmed is not None:
            reason = (f"{device} batch {batch}: {numerator.value}/{denominator.value}, best against best head to head: "
                      f"{confirmed.as_factor()}")
        else:
            reason = (f"{device} batch {batch}: best {numerator.value} {best_top.fps:.0f} FPS "
                      f"({short_label(best_top)}) vs best {denominator.value} {best_bottom.fps:.0f} FPS "
                      f"({short_label(best_bottom)}): "
                      f"{ratio:.2f}x, measured one after the other (not confirmed head to head)")
        paired = paired_cells(head, device, batch, numerator, denominator) if head else {}
        result.append(PrecisionComparison(device, batch, numerator, denominator, grids[Metric.FPS],
                                          grids[Metric.LATENCY_P90], ratio, tuple(notes), reason, confirmed, paired))
    return result


def precision_speeds(points: list[PointResult], confirmations: Sequence[Confirmation] = (),
                     ) -> dict[tuple[str, Precision, int], str]:
    """Per (device, precision, batch), its best FPS against fp32's in words: head to head where a confirmation
    round measured both, else from the search's separate measurements, and said so."""
    speeds = {}
    for numerator in (Precision.FP16, Precision.BF16):
        for c in compare_precisions(points, numerator, confirmations=confirmations):
            speeds[(c.device, numerator, c.batch)] = (
                f"{c.confirmed.as_factor()} FPS of fp32, head to head" if c.confirmed is not None
                else f"{c.best_fps_ratio:.2f}x FPS of fp32, measured apart")
    return speeds


def _ratio_grid(top: HeatmapGrid, bottom: HeatmapGrid) -> HeatmapGrid:
    """top / bottom over the cells both measured."""
    streams = tuple(s for s in top.streams if s in bottom.streams)
    nireqs = tuple(n for n in top.nireqs if n in bottom.nireqs)
    values = np.full((len(streams), len(nireqs)), np.nan)
    failed = np.zeros_like(values, dtype=bool)
    for i, s in enumerate(streams):
        for j, n in enumerate(nireqs):
            a = (top.streams.index(s), top.nireqs.index(n))
            b = (bottom.streams.index(s), bottom.nireqs.index(n))
            values[i, j] = top.values[a] / bottom.values[b]
            failed[i, j] = top.failed[a] or bottom.failed[b]
    return HeatmapGrid(streams, nireqs, values, failed)


# -- hint baselines ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class BaselineGain:
    """A tuned point against a baseline: what OpenVINO picks by itself under a performance hint, or left alone."""

    tuned: PointResult
    baseline: PointResult

    @property
    def fps_gain(self) -> float:
        return self.tuned.fps / self.baseline.fps - 1


def baseline_gains(tuned: PointResult, points: list[PointResult]) -> list[BaselineGain]:
    """The tuned point's gain over "OpenVINO default" at its device and batch, then over the hints at its precision,
    measured apart."""
    def answers_for(base: PointResult) -> bool:
        c, t = base.config, tuned.config
        if c.mode is Mode.DEFAULT:
            return (c.device, c.batch, c.input_mode) == (t.device, t.batch, t.input_mode)
        return (c.heatmap_key, c.input_mode) == (t.heatmap_key, t.input_mode)

    chosen = [b for b in baseline_points(points) if answers_for(b)]
    return [BaselineGain(tuned, b) for b in sorted(chosen, key=lambda b: b.config.mode is not Mode.DEFAULT)]


# -- batch and device view --------------------------------------------------------------------------


@dataclass(frozen=True)
class BatchSeries:
    """The best grid point at each batch size for one (device, precision)."""

    device: str
    precision: Precision
    batches: tuple[int, ...]
    best: tuple[PointResult, ...]


def batch_series(points: list[PointResult]) -> list[BatchSeries]:
    result = []
    for device, precision in sorted({(d, p) for d, p, _ in heatmap_groups(points)}):
        by_batch = {}
        for batch in sorted({b for d, p, b in heatmap_groups(points) if (d, p) == (device, precision)}):
            winner = fastest(p for p in grid_points(points) if p.config.heatmap_key == (device, precision, batch))
            if winner is not None:
                by_batch[batch] = winner
        if by_batch:
            result.append(BatchSeries(device, precision, tuple(by_batch), tuple(by_batch.values())))
    return result
