"""The IR each precision of a job compiles: the model's own (FP16-compressed for fp16), and for int8 the INT8 IR a
sweep recorded in its results file (made again the same way where the cache lost it), or, without one, an INT8 IR made
now the way a sweep makes it (NNCF on generated inputs, cached)."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

import openvino as ov

from ov_tuner.devices.modelfile import ModelSource
from ov_tuner.devices.runtime import Runtime
from ov_tuner.errors import ModelError
from ov_tuner.model.inputs import load_images
from ov_tuner.quantize import quantize_model
from ov_tuner.schema import ACCURACY_INPUTS, CompileInfo, CompileKey, DeviceInfo, Int8Options, Precision, Quantization

# Told that NNCF starts quantizing (seconds to minutes, once), and whether on images.
Quantizing = Callable[[bool], None]


class JobIRs:
    """Reads, reshapes and compiles one configuration at a time from the IR of its precision; the INT8 IR is found or
    made once, when an int8 configuration first needs it."""

    def __init__(self, runtime: Runtime, source: ModelSource, recorded: Quantization | None = None,
                 shapes: dict[str, list[int]] | None = None, quantizing: Quantizing | None = None) -> None:
        self.runtime, self.source, self.recorded = runtime, source, recorded
        self.shapes = shapes or {}
        self.quantizing = quantizing
        self._int8: Path | None = None

    def path(self, precision: Precision) -> Path:
        if precision is not Precision.INT8:
            return self.runtime.ir_path(self.source, precision)
        if self._int8 is None:
            self._int8 = int8_ir(self.runtime, self.source, self.recorded, self.shapes, self.quantizing)
        return self._int8

    def model(self, key: CompileKey) -> ov.Model:
        model = self.runtime.read_ir(self.path(key.precision))
        self.runtime.reshape(model, key.batch, self.shapes)
        return model

    def compile(self, key: CompileKey, device: DeviceInfo, extra: dict[str, str] | None = None,
                ) -> tuple[ov.CompiledModel, CompileInfo]:
        return self.runtime.compile(self.model(key), key, device, self.path(key.precision), extra)


def int8_ir(runtime: Runtime, source: ModelSource, recorded: Quantization | None, shapes: dict[str, list[int]],
            quantizing: Quantizing | None = None) -> Path:
    """The INT8 IR of `source`: the one `recorded` (a results file's) names, made again from what the record holds
    where the cache lost it (refused in one line, naming the `ov-tuner quantize` line to run, where that cannot give
    the same IR); without a record, made now as a sweep without --images makes it."""
    def starting(ir: Path, images: bool) -> None:
        if quantizing is not None:
            quantizing(images)

    if recorded is None:
        return quantize_model(runtime, source, Int8Options(), shapes=shapes, starting=starting).path
    if recorded.given:  # the model came quantized: it is its own INT8 IR
        return runtime.ir_path(source, Precision.FP32)
    if Path(recorded.ir).exists():
        return Path(recorded.ir)
    images_dir = _images_dir(recorded.command)
    again = f"run `{recorded.command}` to make it again, then this command"
    if recorded.images and (images_dir is None or not images_dir.is_dir()):
        where = f"in {images_dir}, which is not a folder here" if images_dir else "the results file does not name"
        raise ModelError(f"the INT8 IR the sweep measured ({recorded.ir}) is gone from the cache, and it was "
                         f"calibrated on images {where}: {again}{'' if images_dir else ' with --images'}")
    images = load_images(images_dir) if recorded.images and images_dir is not None else None
    made = quantize_model(runtime, source, recorded.options, images=images,
                          images_dir=images_dir if images is not None else None, shapes=shapes,
                          held_apart=recorded.held_apart or ACCURACY_INPUTS, starting=starting)
    if made.path != Path(recorded.ir):
        raise ModelError(f"the INT8 IR the sweep measured ({recorded.ir}) is gone from the cache, and making it again "
                         f"here gave another one ({made.path}: other images, --shape, layouts or NNCF): run "
                         f"`{recorded.command}` as the sweep ran it to put it back, or sweep int8 again into a new "
                         "--out")
    return made.path


def _images_dir(command: str) -> Path | None:
    """The --images folder of a recorded `ov-tuner quantize` line."""
    words = shlex.split(command)
    return Path(words[words.index("--images") + 1]) if "--images" in words[:-1] else None
