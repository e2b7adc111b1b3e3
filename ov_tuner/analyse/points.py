"""Which stored points answer a question: the configurations the tuner chose, the baselines, the fastest, the
best per device and precision, the Pareto front, the best per batch."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ov_tuner.analyse.heatmaps import heatmap_groups
from ov_tuner.schema import PointResult, Precision


def explicit_points(points: Iterable[PointResult]) -> list[PointResult]:
    """Measured points of the configurations the tuner chose: streams x requests, or on a virtual device a hint
    with a request count (not the hint baselines)."""
    return [p for p in points if p.ok and p.config.explicit]


def baseline_points(points: Iterable[PointResult]) -> list[PointResult]:
    """Measured points where OpenVINO chose streams and requests under a performance hint."""
    return [p for p in points if p.ok and not p.config.explicit]


def size(p: PointResult) -> tuple[int, int, int]:
    """Smaller configurations first: fewer streams, then fewer requests, then smaller batch."""
    return (p.config.streams, p.config.nireq, p.config.batch)


def fastest(points: Iterable[PointResult]) -> PointResult | None:
    """The point with the most FPS; a tie goes to the smaller configuration."""
    return max(points, key=lambda p: (p.fps, tuple(-v for v in size(p))), default=None)


@dataclass(frozen=True)
class Best:
    """The highest-throughput explicit point of a (device, precision) pair."""

    device: str
    precision: Precision
    point: PointResult

    @property
    def fps(self) -> float:
        return self.point.fps


def best_per_device_precision(points: list[PointResult]) -> list[Best]:
    """For each (device with its --set properties, precision), the explicit point with the most FPS (ties: the smaller
    configuration)."""
    groups: dict[tuple[str, Precision], list[PointResult]] = {}
    for p in explicit_points(points):
        groups.setdefault((p.config.scope, p.config.precision), []).append(p)
    result = []
    for (device, precision), members in sorted(groups.items()):
        winner = fastest(members)
        assert winner is not None
        result.append(Best(device, precision, winner))
    return result


def pareto_front(points: list[PointResult], percentile: int = 90) -> list[PointResult]:
    """Measured points that no other point beats on both FPS and latency, by rising latency."""
    measured = sorted((p for p in points if p.ok), key=lambda p: (p.latency_ms(percentile), -p.fps))
    front: list[PointResult] = []
    for p in measured:
        if not front or p.fps > front[-1].fps:
            front.append(p)
    return front


@dataclass(frozen=True)
class BatchSeries:
    """The best explicit point at each batch size for one (device, precision)."""

    device: str
    precision: Precision
    batches: tuple[int, ...]
    best: tuple[PointResult, ...]


def batch_series(points: list[PointResult]) -> list[BatchSeries]:
    result = []
    for device, precision in sorted({(d, p) for d, p, _ in heatmap_groups(points)}):
        by_batch = {}
        for batch in sorted({b for d, p, b in heatmap_groups(points) if (d, p) == (device, precision)}):
            winner = fastest(p for p in explicit_points(points) if p.config.heatmap_key == (device, precision, batch))
            if winner is not None:
                by_batch[batch] = winner
        if by_batch:
            result.append(BatchSeries(device, precision, tuple(by_batch), tuple(by_batch.values())))
    return result
