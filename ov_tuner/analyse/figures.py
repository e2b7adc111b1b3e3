"""What every figure of a results file draws, computed once from the file and its answer: the grids and their marks,
the precisions' ratios, the Pareto front, the best per batch, the virtual devices against their members, the cameras
served and the soaks' drift. ov_tuner.present only draws these records, so a figure shows what `show` says."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ov_tuner.analyse.accuracy import accuracy_of
from ov_tuner.analyse.answer import Answer
from ov_tuner.analyse.capacity import Served, latest_served
from ov_tuner.analyse.drift import SoakDrift, soak_drift
from ov_tuner.analyse.heatmaps import (
    FigureMarks,
    Heatmap,
    HeatmapMarks,
    Metric,
    figure_marks,
    heatmap_groups,
    heatmap_marks,
    heatmap_of,
    ratio_marks,
)
from ov_tuner.analyse.points import BatchSeries, batch_series, explicit_points, fastest, pareto_front
from ov_tuner.analyse.precisions import PrecisionComparison, all_precision_comparisons, ran_in
from ov_tuner.schema import Accuracy, DeviceInfo, Environment, PointResult, Precision, Profile, Quantization
from ov_tuner.store.results import StoredResults


@dataclass(frozen=True)
class HeatmapData:
    """One (device, precision, batch) over streams x requests: a grid per metric, the marks on them, and what ran
    (CompileInfo.ran of every compile that asked for the precision)."""

    device: str
    precision: Precision
    batch: int
    grids: Mapping[Metric, Heatmap]
    marks: HeatmapMarks
    ran: tuple[str, ...]


def heatmap_data(points: list[PointResult], device: str, precision: Precision, batch: int,
                 deployed: PointResult | None = None) -> HeatmapData:
    """The grids of every metric, marked with `deployed` (the answer's point; None: the file has no answer)."""
    return HeatmapData(device, precision, batch, {m: heatmap_of(points, device, precision, batch, m) for m in Metric},
                       heatmap_marks(points, device, precision, batch, deployed),
                       tuple(sorted(ran_in(points, device, precision, batch))))


@dataclass(frozen=True)
class PrecisionData:
    """One precision over another at a device and batch: `fps` the FPS ratio per cell, the confirmation round's
    head-to-head ratio where it measured the cell in both precisions, `apart` the cells measured apart (in the
    search); the numerator's outputs against fp32 (None: not compared) and the marks."""

    comparison: PrecisionComparison
    fps: Heatmap
    apart: np.ndarray
    accuracy: Accuracy | None
    marks: HeatmapMarks


def precision_data(points: list[PointResult], comparison: PrecisionComparison, accuracies: list[Accuracy],
                   deployed: PointResult | None = None) -> PrecisionData:
    c = comparison
    grid = c.fps_ratio
    values = grid.values.copy()
    apart = np.ones_like(values, dtype=bool)
    for (streams, nireq), ratio in c.paired.items():
        if streams in grid.streams and nireq in grid.nireqs:
            cell = (grid.streams.index(streams), grid.nireqs.index(nireq))
            values[cell] = ratio.value
            apart[cell] = False
    return PrecisionData(c, Heatmap(grid.streams, grid.nireqs, values, grid.failed), apart,
                         accuracy_of(accuracies, c.device, c.numerator, c.batch),
                         ratio_marks(points, grid, c.device, (c.numerator, c.denominator), c.batch, deployed))


@dataclass(frozen=True)
class ParetoData:
    """Every measured point and, of them, the Pareto front of FPS against the latency at `percentile`, by rising
    latency."""

    points: tuple[PointResult, ...]
    front: tuple[PointResult, ...]
    percentile: int


def pareto_data(points: list[PointResult], percentile: int = 90) -> ParetoData:
    measured = [p for p in points if p.ok]
    return ParetoData(tuple(measured), tuple(pareto_front(measured, percentile)), percentile)


@dataclass(frozen=True)
class VirtualData:
    """A virtual device's explicit points (a hint with a request count), and each member's fastest point alone, with
    no --set property (a member never measured alone is left out)."""

    device: DeviceInfo
    points: tuple[PointResult, ...]
    alone: tuple[tuple[str, PointResult], ...]


def virtual_data(points: list[PointResult], device: DeviceInfo) -> VirtualData:
    explicit = explicit_points(points)
    alone = ((m, fastest(p for p in explicit if p.config.device == m and not p.config.settings))
             for m in device.members)
    return VirtualData(device, tuple(p for p in explicit if p.config.device == device.name),
                       tuple((m, p) for m, p in alone if p is not None))


@dataclass(frozen=True)
class PlotData:
    """Every figure a results file supports, each marking what the answer deploys and OpenVINO default (`marks`):
    a heatmap per (device, precision, batch), each precision pair, the Pareto front (None: no explicit point
    measured), the best per batch (empty: one batch of one device and precision, nothing to compare), each virtual
    device measured, the latest profile of each configuration, the cameras served and every soak in the file's
    order."""

    environment: Environment
    devices: Mapping[str, DeviceInfo]
    marks: FigureMarks
    heatmaps: tuple[HeatmapData, ...]
    precisions: tuple[PrecisionData, ...]
    pareto: ParetoData | None
    batch: tuple[BatchSeries, ...]
    virtual: tuple[VirtualData, ...]
    profiles: tuple[Profile, ...]
    served: tuple[Served, ...]
    soaks: tuple[SoakDrift, ...]
    quantization: Quantization | None


def plot_data(results: StoredResults, answer: Answer | None) -> PlotData:
    """The figures' records for `results`, marking what `answer` deploys (None: the file has nothing to deploy)."""
    points, devices = results.points, results.devices
    deployed = answer.recommendation.winner if answer is not None else None
    series = batch_series(points)
    worth = any(len(s.batches) > 1 for s in series) or len(series) > 1
    return PlotData(
        environment=results.environment, devices=devices, marks=figure_marks(points, deployed),
        heatmaps=tuple(heatmap_data(points, *group, deployed) for group in heatmap_groups(points)),
        precisions=tuple(precision_data(points, c, results.accuracies, deployed)
                         for c in all_precision_comparisons(points, results.confirmations)),
        pareto=pareto_data(points) if fastest(explicit_points(points)) is not None else None,
        batch=tuple(series) if worth else (),
        virtual=tuple(virtual_data(points, d) for d in _virtual_measured(points, devices)),
        profiles=tuple(results.latest_profiles()), served=tuple(latest_served(results.capacities)),
        soaks=tuple(soak_drift(s) for s in results.soaks), quantization=results.quantization)


def _virtual_measured(points: list[PointResult], devices: Mapping[str, DeviceInfo]) -> Sequence[DeviceInfo]:
    """The virtual devices (those with members) that the file holds points of."""
    return [d for d in devices.values() if d.members and any(p.config.device == d.name for p in points)]
