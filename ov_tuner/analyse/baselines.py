"""Baselines against the search's own points, measured apart: a baseline that beat the best searched point beyond
noise (and why the search missed it), the gain of a tuned point over each baseline, and the tables' rows of both
(the best per device and precision against its baselines, each baseline against the best tuned point)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from ov_tuner.analyse.points import Best, baseline_points, best_per_device_precision, explicit_points, fastest
from ov_tuner.schema import Mode, PointResult
from ov_tuner.stats.evidence import Estimate, clearly_worse


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
        members = [p for p in explicit_points(points) if p.config.input_mode is c.input_mode and p.config.settings == ()
                   and (p.config.device, p.config.batch) == (c.device, c.batch)] if default else \
            [p for p in explicit_points(points) if p.config.heatmap_key == c.heatmap_key
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


@dataclass(frozen=True)
class BestTuned:
    """The best explicit point of a device and precision as the search measured it, its gains over the baselines that
    answer for it (measured apart), and a baseline faster than it beyond noise (None where none is)."""

    best: Best
    gains: tuple[BaselineGain, ...]
    beaten_by: Inconsistency | None


def best_tuned(points: list[PointResult], beaten: Sequence[Inconsistency]) -> list[BestTuned]:
    """Each device and precision's best point against its baselines; `beaten` are the file's inconsistencies (where
    several beat one point, the last is kept)."""
    by_best = {id(i.best): i for i in beaten}
    return [BestTuned(b, tuple(baseline_gains(b.point, points)), by_best.get(id(b.point)))
            for b in best_per_device_precision(points)]


@dataclass(frozen=True)
class BaselineStanding:
    """A baseline and the gain over it of the fastest tuned point it answers for, measured apart (None where the search
    measured none)."""

    baseline: PointResult
    gain: BaselineGain | None


def baseline_standings(points: list[PointResult]) -> list[BaselineStanding]:
    """Every baseline against the fastest explicit point of its device, precision and batch ("OpenVINO default": of
    its device and batch, any precision)."""
    standings = []
    for base in baseline_points(points):
        c = base.config
        tuned = fastest(p for p in explicit_points(points) if p.config.heatmap_key == c.heatmap_key
                        or (c.mode is Mode.DEFAULT and (p.config.device, p.config.batch) == (c.device, c.batch)))
        standings.append(BaselineStanding(base, BaselineGain(tuned, base) if tuned is not None else None))
    return standings
