"""What every command that compiles says of the devices and precisions it starts on: how a --device value was read,
which precisions a device runs as fp32's math, and that NNCF is making the INT8 IR."""

from __future__ import annotations

from ov_tuner.devices.decisions import PRECISION_CAPABILITY
from ov_tuner.devices.strings import ReadAs, Reading
from ov_tuner.present.words.numbers import names
from ov_tuner.schema import Merged, MergeReason


def reading_text(reading: Reading) -> str:
    """How a --device value was read, where that is worth saying."""
    devices = names(list(reading.devices))
    if reading.why is ReadAs.TWICE:
        return f"--device {reading.written}: {devices} is named twice; swept once"
    if reading.why is ReadAs.BATCH_TAKES_ONE:
        return (f"--device {reading.written} read as {devices}: BATCH takes one device, so the names after it are "
                "devices of their own")
    return (f"--device {reading.written} read as {devices}: a virtual device takes every plain name after it; to "
            "sweep one of them on its own too, name it before the virtual device or in another --device")


def quantizing_text(images: bool) -> str:
    """NNCF starts making the INT8 IR (seconds to minutes, once: the IR is cached)."""
    on = "every other image" if images else "generated inputs"
    return f"int8: quantizing with NNCF, calibrated on {on} (once: the IR is cached)"


def merged_text(merged: tuple[Merged, ...] | list[Merged]) -> str:
    """'bf16 and fp16 run f32 math on CPU (it lists no BF16, no FP16): measured as fp32'."""
    if not merged:
        return ""
    device = merged[0].device
    precisions = names([m.precision.value for m in merged])
    reason = merged[0].reason
    verb = "runs" if len(merged) == 1 else "run"
    if reason is MergeReason.VIRTUAL:
        return (f"{device} is a virtual device: its members may run {precisions} differently, so auto sweeps fp32 "
                "there; name them with --precision to sweep them")
    if reason is MergeReason.NO_CAPABILITY:
        lacks = ", no ".join(PRECISION_CAPABILITY[m.precision] for m in merged)
        return f"{precisions} {verb} f32 math on {device} (it lists no {lacks}): measured as fp32"
    ran = names(sorted({m.ran for m in merged}))
    return f"{precisions} {verb} {ran} on {device}, the same math as fp32 (read back after a compile): measured as fp32"
