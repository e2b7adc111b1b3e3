"""Pure functions over stored points: best configurations, heatmap grids and diagnostics."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from ov_tuner.schema import PointResult, Precision, Status

# A point whose slice-to-slice throughput varies more than this (coefficient of variation) is noisy.
NOISY_FPS_CV = 0.10


@dataclass(frozen=True)
class Best:
    """The highest-throughput point of a (device, precision) pair."""

    device: str
    precision: Precision
    point: PointResult

    @property
    def fps(self) -> float:
        assert self.point.measurement is not None
        return self.point.measurement.fps


def ok_points(points: list[PointResult]) -> list[PointResult]:
    return [p for p in points if p.status is Status.OK and p.measurement is not None]


def best_per_device_precision(points: list[PointResult]) -> list[Best]:
    """For each (device, precision), the point with the most frames per second (ties: fewer streams, requests)."""
    best: dict[tuple[str, Precision], PointResult] = {}
    for p in ok_points(points):
        key = (p.config.device, p.config.precision)
        if key not in best or _rank(p) > _rank(best[key]):
            best[key] = p
    return [Best(d, pr, best[(d, pr)]) for d, pr in sorted(best)]


def _rank(p: PointResult) -> tuple[float, int, int, int]:
    assert p.measurement is not None
    return (p.measurement.fps, -p.config.streams, -p.config.nireq, -p.config.batch)


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
        m = p.measurement
        assert m is not None
        if self is Metric.FPS:
            return m.fps
        lat = m.latency
        return lat.median if self is Metric.LATENCY_MEDIAN else lat.p90


@dataclass(frozen=True)
class HeatmapGrid:
    """Values of one metric for streams (rows) x nireq (columns); NaN where a point failed or is missing."""

    streams: tuple[int, ...]
    nireqs: tuple[int, ...]
    values: np.ndarray
    failed: np.ndarray


def heatmap_grid(points: list[PointResult], device: str, precision: Precision, batch: int,
                 metric: Metric) -> HeatmapGrid:
    selected = [p for p in points if p.config.heatmap_key == (device, precision, batch)]
    streams = tuple(sorted({p.config.streams for p in selected}))
    nireqs = tuple(sorted({p.config.nireq for p in selected}))
    values = np.full((len(streams), len(nireqs)), np.nan)
    failed = np.zeros_like(values, dtype=bool)
    for p in selected:
        cell = (streams.index(p.config.streams), nireqs.index(p.config.nireq))
        if p.status is Status.OK and p.measurement is not None:
            values[cell] = metric.of(p)
        else:
            failed[cell] = True
    return HeatmapGrid(streams, nireqs, values, failed)


def heatmap_groups(points: list[PointResult]) -> list[tuple[str, Precision, int]]:
    """Each (device, precision, batch) that has points, in sweep order."""
    return sorted({p.config.heatmap_key for p in points})


class DiagnosticKind(str, Enum):
    FAILED = "failed point"
    PRECISION = "precision differs from request"
    STREAMS = "streams differ from request"
    IDLE_STREAMS = "fewer requests than streams"
    NOISY = "noisy point"


_HINTS = {
    DiagnosticKind.FAILED: "the error is stored with the point; rerun the sweep to retry failed points",
    DiagnosticKind.PRECISION: "the device ran another precision than asked; compare precisions by what executed",
    DiagnosticKind.STREAMS: "the device changed NUM_STREAMS; read the cell as the read-back stream count",
    DiagnosticKind.IDLE_STREAMS: "some streams sit idle; use nireq >= streams for throughput",
    DiagnosticKind.NOISY: "the machine was busy or the window short; rerun with a longer --time",
}


@dataclass(frozen=True)
class Diagnostic:
    """A warning about stored results, with what to do about it."""

    kind: DiagnosticKind
    label: str
    detail: str

    @property
    def hint(self) -> str:
        return _HINTS[self.kind]


def diagnostics(points: list[PointResult]) -> list[Diagnostic]:
    """Everything a reader of these results should know before trusting a number."""
    found: list[Diagnostic] = []
    seen_compiles: set[object] = set()
    for p in points:
        label = p.config.label()
        if p.status is Status.FAILED:
            found.append(Diagnostic(DiagnosticKind.FAILED, label, p.error or "no message"))
            continue
        c = p.compile
        if c is not None and c.key not in seen_compiles:
            seen_compiles.add(c.key)
            group = f"{c.key.device} {c.key.precision.value} batch {c.key.batch} {c.key.streams} streams"
            asked = c.requested.get("INFERENCE_PRECISION_HINT", "")
            ran = {c.inference_precision, c.executed_precision} - {"unknown"}
            if asked != p.config.precision.hint or ran != {asked}:
                found.append(Diagnostic(
                    DiagnosticKind.PRECISION, group,
                    f"{p.config.precision.value} asked for hint {p.config.precision.hint}; requested {asked}, "
                    f"device reports {c.inference_precision}, compute layers ran {c.executed_precision}",
                ))
            if c.num_streams != c.key.streams:
                found.append(Diagnostic(DiagnosticKind.STREAMS, group,
                                        f"asked {c.key.streams} streams, device runs {c.num_streams}"))
        if p.config.nireq < (c.num_streams if c else p.config.streams):
            streams = c.num_streams if c else p.config.streams
            detail = f"{p.config.nireq} requests for {streams} streams"
            found.append(Diagnostic(DiagnosticKind.IDLE_STREAMS, label, detail))
        cv = p.measurement.fps_cv if p.measurement else None
        if cv is not None and cv > NOISY_FPS_CV:
            found.append(Diagnostic(DiagnosticKind.NOISY, label, f"throughput varied {cv:.0%} (CV) across the window"))
    return found
