"""Heatmaps: one metric over streams (rows) x requests (columns) for a device, precision and batch."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from ov_tuner.schema import Mode, PointResult, Precision


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
class Heatmap:
    """Values of one metric for streams (rows) x nireq (columns); NaN where a point failed or is missing."""

    streams: tuple[int, ...]
    nireqs: tuple[int, ...]
    values: np.ndarray
    failed: np.ndarray

    def cell(self, p: PointResult) -> tuple[int, int]:
        return (self.streams.index(p.config.streams), self.nireqs.index(p.config.nireq))


def heatmap_of(points: list[PointResult], device: str, precision: Precision, batch: int,
                 metric: Metric) -> Heatmap:
    selected = [p for p in points
                if p.config.mode is Mode.EXPLICIT and p.config.heatmap_key == (device, precision, batch)]
    streams = tuple(sorted({p.config.streams for p in selected}))
    nireqs = tuple(sorted({p.config.nireq for p in selected}))
    values = np.full((len(streams), len(nireqs)), np.nan)
    failed = np.zeros_like(values, dtype=bool)
    grid = Heatmap(streams, nireqs, values, failed)
    for p in selected:
        if p.ok:
            values[grid.cell(p)] = metric.of(p)
        else:
            failed[grid.cell(p)] = True
    return grid


def heatmap_groups(points: list[PointResult]) -> list[tuple[str, Precision, int]]:
    """Each (device, precision, batch) that has explicit points, in sweep order."""
    return sorted({p.config.heatmap_key for p in points if p.config.mode is Mode.EXPLICIT})


def ratio_grid(top: Heatmap, bottom: Heatmap) -> Heatmap:
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
    return Heatmap(streams, nireqs, values, failed)

