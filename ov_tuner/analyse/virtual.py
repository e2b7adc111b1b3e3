"""OpenVINO's virtual devices against the tuned real devices they run on: does AUTO:GPU,CPU under
CUMULATIVE_THROUGHPUT (or MULTI, HETERO, BATCH) beat the best each member manages alone? Pure.

The gain depends on the box (CPU and GPU share power and memory bandwidth), so it is measured, never assumed:
head to head where the confirmation round measured both, else from the search's separate measurements,
and said so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ov_tuner.analyse.points import explicit_points, fastest
from ov_tuner.schema import Confirmation, DeviceInfo, PointResult, Precision
from ov_tuner.stats.headtohead import HeadToHead, Ratio


@dataclass(frozen=True)
class VirtualComparison:
    """A virtual device's best point against the best of one of its members, at one precision and batch."""

    virtual: PointResult
    member: PointResult
    fps: tuple[float, float]  # the virtual device's and the member's: the round's where it measured both
    ratio: Ratio | None  # head to head, where the confirmation round measured both


def virtual_comparisons(points: list[PointResult], devices: Mapping[str, DeviceInfo],
                        confirmations: Sequence[Confirmation] = ()) -> list[VirtualComparison]:
    """For every virtual device, precision and batch: its best point against each member's best."""
    head = HeadToHead.of(confirmations[-1]) if confirmations else None
    contenders = {c.config: c for c in head.confirmation.contenders} if head else {}
    found = []
    measured = explicit_points(points)
    for device in (d for d in devices.values() if d.members):
        for precision, batch in sorted({(p.config.precision, p.config.batch) for p in measured
                                        if p.config.device == device.name}):
            best = _best(measured, device.name, precision, batch)
            assert best is not None
            for member in device.members:
                alone = _best(measured, member, precision, batch)
                if alone is None:
                    continue
                if head is not None and best.config in contenders and alone.config in contenders:
                    pair = (head.figures_of(contenders[best.config]), head.figures_of(contenders[alone.config]))
                    ratio = head.ratio(pair[0].contender, pair[1].contender)
                    fps = (pair[0].fps, pair[1].fps)
                else:
                    ratio, fps = None, (best.fps, alone.fps)
                found.append(VirtualComparison(best, alone, fps, ratio))
    return found


def _best(points: list[PointResult], device: str, precision: Precision, batch: int) -> PointResult | None:
    return fastest(p for p in points if (p.config.device, p.config.precision, p.config.batch, p.config.settings)
                   == (device, precision, batch, ()))
