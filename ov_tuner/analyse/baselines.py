"""Baselines against the search's own points, measured apart: a baseline that beat the best searched point beyond
noise (and why the search missed it), and the gain of a tuned point over each baseline."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ov_tuner.analyse.points import baseline_points, explicit_points, fastest
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
