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
        members = sorted((p for p in explicit_points(points) if p.config.heatmap_key == (device, precision, batch)),
                         key=size)
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
