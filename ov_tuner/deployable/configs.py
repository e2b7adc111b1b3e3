"""The configurations a job runs, from what its flags asked: devices x precisions x streams x requests, with
`--precision auto` resolved per device as the sweep resolves it (ov_tuner.devices.decisions)."""

from __future__ import annotations

from dataclasses import dataclass

from ov_tuner.devices.decisions import auto_precisions
from ov_tuner.devices.runtime import Runtime
from ov_tuner.schema import DeviceInfo, PointConfig, Precision


@dataclass(frozen=True)
class Asked:
    """Devices x precisions x streams x requests at one batch. `precisions` None is auto: fp32 and each precision the
    device runs as math of its own (with `int8`: int8 besides), as a sweep's auto."""

    devices: tuple[str, ...]
    precisions: tuple[Precision, ...] | None
    streams: tuple[int, ...]
    nireq: tuple[int, ...]
    batch: int = 1
    int8: bool = False


def grid_configs(asked: Asked, runtime: Runtime | None = None) -> tuple[PointConfig, ...]:
    """Every combination asked, on devices that are present (one line naming a missing one)."""
    configs: list[PointConfig] = []
    for device in (runtime or Runtime()).resolve_devices(asked.devices):
        precisions = asked.precisions or (*auto_precisions(device)[0], *((Precision.INT8,) if asked.int8 else ()))
        configs += [PointConfig(device.name, p, asked.batch, s, n)
                    for p in precisions for s in asked.streams for n in asked.nireq]
    return tuple(configs)


def one_config(device: str, precision: Precision | None, batch: int, streams: int, nireq: int,
               runtime: Runtime | None = None) -> PointConfig:
    """One configuration on a device that is present; precision None (auto) is the one the device runs when not told
    (its INFERENCE_PRECISION_HINT: bf16 on many CPUs, f16 on a GPU) where auto would sweep it, else fp32."""
    (info,) = (runtime or Runtime()).resolve_devices((device,))
    return PointConfig(info.name, precision or default_precision(info), batch, streams, nireq)


def default_precision(device: DeviceInfo) -> Precision:
    """The precision `device` runs when not told, among those --precision auto sweeps on it; fp32 otherwise (a virtual
    device, or a default that auto measures as fp32)."""
    return next((p for p in auto_precisions(device)[0] if p.hint == device.default_precision), Precision.FP32)
