"""The INT8 IR a sweep or a job compiles, one way for both: made as the options say (NNCF once, then the cache),
or, where a results file recorded one, that IR: reused while it is on disk, made again from the record where the
cache lost it, and never another one in its place."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from ov_tuner.devices.modelfile import ModelSource
from ov_tuner.devices.runtime import Runtime
from ov_tuner.errors import Input, ModelError
from ov_tuner.model.inputs import load_images
from ov_tuner.quantize.make import QuantizedIR, quantize_model
from ov_tuner.schema import ACCURACY_INPUTS, Int8Options, Precision, Quantization

# Told the IR about to be made, before NNCF runs: raises where a results file cannot take that IR.
Check = Callable[[Path], None]
# Told that NNCF starts quantizing (seconds to minutes, once), and whether on images.
Starting = Callable[[bool], None]


def int8_ir(runtime: Runtime, source: ModelSource, options: Int8Options | None = None, *,
            images: list[np.ndarray] | None = None, images_dir: Path | None = None,
            shapes: dict[str, list[int]] | None = None, layouts: dict[str, str] | None = None,
            held_apart: int = ACCURACY_INPUTS, recorded: Quantization | None = None, check: Check | None = None,
            starting: Starting | None = None) -> QuantizedIR:
    """The INT8 IR of `source`, calibrated on `images` (read from the folder `images_dir`, which the record keeps) or on
    generated inputs, with `options` (the defaults where None). With `recorded` (a results file's), the IR it names
    instead: reused while on disk, else made again from the record's options, images folder and held-apart count,
    and refused in one line naming its `ov-tuner quantize` line where that would give another IR. `check` sees the
    IR before NNCF runs, and once more where it came from the cache: it raises where a results file cannot take it."""
    if recorded is not None:
        if recorded.given:  # the model came quantized: it is its own INT8 IR
            return QuantizedIR(runtime.ir_path(source, Precision.FP32), recorded)
        if Path(recorded.ir).exists():
            return QuantizedIR(Path(recorded.ir), recorded)
        options, held_apart = recorded.options, recorded.held_apart or ACCURACY_INPUTS
        images_dir = Path(recorded.images_dir) if recorded.images and recorded.images_dir else None
        if recorded.images and (images_dir is None or not images_dir.is_dir()):
            raise ModelError(f"the INT8 IR the sweep measured ({recorded.ir}) is gone from the cache, and it was "
                             f"calibrated on images in {images_dir}, which is not a folder here: run "
                             f"`{recorded.command}` to make it again, then this command")
        images = load_images(images_dir) if images_dir is not None else None
        check = _the_recorded(recorded)

    def before_nncf(ir: Path, on_images: bool) -> None:
        if check is not None:
            check(ir)
        if starting is not None:
            starting(on_images)

    made = quantize_model(runtime, source, options or Int8Options(), images=images, images_dir=images_dir,
                          shapes=shapes, layouts=layouts, held_apart=held_apart, starting=before_nncf)
    if check is not None:  # a cached IR was not checked before
        check(Path(made.record.ir))
    return made


def _the_recorded(recorded: Quantization) -> Check:
    """Refuses, before NNCF runs, an IR other than the one `recorded` names."""
    def check(ir: Path) -> None:
        if ir != Path(recorded.ir):
            raise ModelError(f"the INT8 IR the sweep measured ({recorded.ir}) is gone from the cache, and making it "
                             f"again here gives another one ({ir}: other images, {Input.SHAPE}, layouts or NNCF): run "
                             f"`{recorded.command}` as the sweep ran it to put it back, or sweep int8 again into a "
                             f"new {Input.RESULTS}")
    return check
