"""What every command that compiles says as it starts: how a --device value was read, and that NNCF is making the
INT8 IR."""

from __future__ import annotations

from ov_tuner.devices.strings import ReadAs, Reading
from ov_tuner.present.words.numbers import names


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
