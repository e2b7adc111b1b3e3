"""Heatmaps: one metric over streams (rows) x requests (columns) for a device, precision and batch; and where the
configuration to deploy, the fastest cell and OpenVINO default fall on each figure, so every figure shows the answer."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from ov_tuner.schema import InputMode, Mode, PointConfig, PointResult, Precision
from ov_tuner.schema.results import twin_of


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



@dataclass(frozen=True)
class Placed:
    """A configuration against one heatmap, as explicit streams x requests (OpenVINO default's: those it read back,
    at the precision it ran): `in_panel` where the heatmap draws its device, precision and batch, `cell` (row,
    column) where it is also one of the heatmap's cells."""

    config: PointConfig
    in_panel: bool
    cell: tuple[int, int] | None


@dataclass(frozen=True)
class HeatmapMarks:
    """What a heatmap marks, so that it shows the same answer as every other output: the configuration to deploy
    (None: the file has no answer), the fastest cell measured (None: none, or a grid of ratios) and OpenVINO default
    (None: it never ran on the heatmap's device)."""

    deployed: Placed | None
    fastest: tuple[int, int] | None
    default: Placed | None


@dataclass(frozen=True)
class FigureMarks:
    """The points the Pareto and batch figures mark: the one to deploy and the OpenVINO default it is measured
    against (None where there is none)."""

    deployed: PointResult | None
    default: PointResult | None


def heatmap_marks(points: list[PointResult], device: str, precision: Precision, batch: int,
                  deployed: PointResult | None) -> HeatmapMarks:
    """The marks of the (device, precision, batch) heatmap; the fastest cell's ties go to fewer streams, then fewer
    requests, as analyse.points.fastest breaks them."""
    fps = heatmap_of(points, device, precision, batch, Metric.FPS)
    fastest = None
    if np.isfinite(fps.values).any():
        row, col = np.unravel_index(np.nanargmax(fps.values), fps.values.shape)
        fastest = (int(row), int(col))
    return _marks(points, fps, {(device, precision, batch)}, deployed, fastest)


def ratio_marks(points: list[PointResult], ratios: Heatmap, device: str, precisions: tuple[Precision, Precision],
                batch: int, deployed: PointResult | None) -> HeatmapMarks:
    """The marks of a grid of one precision over another: a cell of either precision falls on it."""
    return _marks(points, ratios, {(device, p, batch) for p in precisions}, deployed, None)


def figure_marks(points: list[PointResult], deployed: PointResult | None) -> FigureMarks:
    """The deployed point and the OpenVINO default of its device, batch and input mode (without an answer, the
    first OpenVINO default measured)."""
    if deployed is None:
        default = next((p for p in points if p.ok and p.config.mode is Mode.DEFAULT), None)
    else:
        c = deployed.config
        default = openvino_default(points, c.device, c.batch, c.input_mode)
    return FigureMarks(deployed, default)


def openvino_default(points: list[PointResult], device: str, batch: int, input_mode: InputMode) -> PointResult | None:
    """The OpenVINO default measured on `device` that answers for `batch` and `input_mode` (as the answer's gains pair
    them), else the one of the nearest batch; None where it never ran on the device."""
    ran = [p for p in points if p.ok and p.config.mode is Mode.DEFAULT and p.config.device == device]
    return min(ran, key=lambda p: (p.config.input_mode is not input_mode, abs(p.config.batch - batch)), default=None)


def _marks(points: list[PointResult], grid: Heatmap, keys: set[tuple[str, Precision, int]],
           deployed: PointResult | None, fastest: tuple[int, int] | None) -> HeatmapMarks:
    members = [p for p in points if p.config.mode is Mode.EXPLICIT and p.config.heatmap_key in keys]
    default = None
    if members:
        c = members[0].config
        default = openvino_default(points, c.device, c.batch, c.input_mode)
    return HeatmapMarks(_placed(deployed.config, grid, keys) if deployed is not None else None, fastest,
                        _placed(twin_of(default), grid, keys) if default is not None else None)


def _placed(config: PointConfig, grid: Heatmap, keys: set[tuple[str, Precision, int]]) -> Placed:
    in_panel = config.mode is Mode.EXPLICIT and config.heatmap_key in keys
    on_grid = in_panel and config.streams in grid.streams and config.nireq in grid.nireqs
    cell = (grid.streams.index(config.streams), grid.nireqs.index(config.nireq)) if on_grid else None
    return Placed(config, in_panel, cell)
