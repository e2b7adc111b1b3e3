"""What `ov-tuner devices` lists of each device: what it reports, and what a sweep of precision auto would sweep on it
and measure once, as fp32 (ov_tuner.devices.decisions.auto_precisions), decided here so that present/ only words it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ov_tuner.devices.decisions import auto_precisions
from ov_tuner.schema import DeviceInfo, Merged, Precision


@dataclass(frozen=True)
class DeviceListing:
    """A device present, the precisions precision auto sweeps on it (`auto`), and those it measures as fp32."""

    device: DeviceInfo
    auto: tuple[Precision, ...]
    merged: tuple[Merged, ...]


def device_listings(devices: Iterable[DeviceInfo]) -> tuple[DeviceListing, ...]:
    return tuple(DeviceListing(d, *auto_precisions(d)) for d in devices)
