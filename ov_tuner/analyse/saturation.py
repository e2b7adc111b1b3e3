"""Saturation: where adding streams or requests stops paying, per device, precision and batch."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ov_tuner.analyse.heatmaps import heatmap_groups
from ov_tuner.analyse.points import explicit_points, fastest, size
from ov_tuner.schema import DeviceInfo, PointResult, Precision

# A configuration within this fraction of the best FPS counts as saturating the device:
# adding streams or requests beyond it buys less than this.
SATURATION_TOLERANCE = 0.05


@dataclass(frozen=True)
class Saturation:
    """Where adding streams or requests stops paying for one (device, precision, batch)."""

    device: str
    precision: Precision
    batch: int
    point: PointResult
    best: PointResult
    beyond: PointResult | None  # what going further costs: the best when bigger, else the biggest measured
    measured: int  # configurations measured
    top_streams: int | None  # the device's most streams, where it says

    @property
    def at_most_streams(self) -> bool:
        """Whether the point runs the most streams the device allows: only more requests could go further."""
        return self.top_streams is not None and self.point.streams >= self.top_streams


def saturation(points: list[PointResult], tolerance: float = SATURATION_TOLERANCE,
               devices: Mapping[str, DeviceInfo] | None = None) -> list[Saturation]:
    """Per (device, precision, batch): the smallest configuration within `tolerance` of the best FPS.

    It is compared with the best point when that is bigger, else with the biggest configuration measured, so that
    what going further costs in p90 latency can be said; `devices` tells the most streams each device allows.
    """
    result = []
    for device, precision, batch in heatmap_groups(points):
        members = sorted((p for p in explicit_points(points) if p.config.heatmap_key == (device, precision, batch)),
                         key=size)
        best = fastest(members)
        if best is None:
            continue
        point = next(p for p in members if p.fps >= (1 - tolerance) * best.fps)
        beyond = best if best is not point else (members[-1] if members[-1] is not point else None)
        info = (devices or {}).get(device)
        top = info.streams_range[1] if info is not None and info.streams_range else None
        result.append(Saturation(device=device, precision=precision, batch=batch, point=point, best=best, beyond=beyond,
                                 measured=len(members), top_streams=top))
    return result
