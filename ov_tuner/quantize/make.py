"""Making the INT8 IR: one function for `ov-tuner quantize` and the sweep, its result cached under ~/.cache/ov-tuner
by the model's sha256, the calibration set, the options, and NNCF's and OpenVINO's versions.

A model that is already quantized is returned as given, never quantized twice.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import openvino as ov

from ov_tuner.devices.modelfile import ModelSource, set_layouts
from ov_tuner.devices.runtime import Runtime
from ov_tuner.model.outputs import class_score_outputs
from ov_tuner.model.quantized import has_attention, quantized_ops
from ov_tuner.quantize import nncf_backend
from ov_tuner.quantize.agreement import agreement_with, outputs_of
from ov_tuner.quantize.data import CalibrationSets, calibration_sets
from ov_tuner.quantize.paths import int8_ir_path
from ov_tuner.schema import ACCURACY_INPUTS, Int8Options, Precision, Preset, Quantization


@dataclass(frozen=True)
class QuantizedIR:
    """The INT8 IR (in the cache, or the model itself where it came quantized) and how it was made."""

    path: Path
    record: Quantization


def quantize_model(runtime: Runtime, source: ModelSource, options: Int8Options, *,
                   images: list[np.ndarray] | None = None, images_dir: Path | None = None,
                   shapes: dict[str, list[int]] | None = None, layouts: dict[str, str] | None = None,
                   held_apart: int = ACCURACY_INPUTS, starting: Callable[[Path, bool], None] | None = None,
                   ) -> QuantizedIR:
    """The INT8 IR of `source`: calibrated on every other image of `images` (the rest held apart), or on generated
    inputs; with options.max_drop, NNCF's accuracy control keeps the agreement with FP32 on the held-apart inputs
    within that many points. Made once per model, calibration set, options and versions, then reused. `starting` is
    told the IR to be made (and whether on images) before NNCF runs, the one slow step: it may still refuse."""
    shapes, layouts = shapes or {}, layouts or {}
    model = runtime.read_model(source, Precision.FP32)
    set_layouts(model, layouts)
    command = quantize_command(source.path, options, images_dir, shapes, layouts)
    if found := quantized_ops(model):
        return QuantizedIR(runtime.ir_path(source, Precision.FP32),
                           Quantization(ir=str(source.path), given=True, quantized_ops=found,
                                        images=images is not None, calibration=0, held_apart=0, options=options,
                                        nncf_version="", seconds=0.0, cached=False, command=""))
    version = nncf_backend.require_nncf()
    sets = calibration_sets(model, images, shapes, options.calibration_count(images is not None), held_apart)
    # The held-apart inputs make the IR only under accuracy control (they judge the drop).
    held = sets.held_apart.identity() if options.max_drop is not None else None
    key = hashlib.sha256(json.dumps({
        "calibration": sets.calibration.identity(), "held_apart": held, "options": asdict(options),
        "layouts": layouts, "nncf": version, "openvino": ov.get_version(),
    }, sort_keys=True).encode()).hexdigest()
    stem = f"{source.name}_int8_{key[:12]}"
    target = runtime.cached_ir_path(source, stem)
    cached = target.exists()
    started = time.perf_counter()
    transformer = has_attention(model)

    def make() -> ov.Model:  # called once the cache has a folder for it
        if starting is not None:
            starting(target, sets.images)
        return _quantized(runtime, model, sets, options, transformer)

    path = runtime.cached_ir(source, stem, make, compress=False)
    seconds = 0.0 if cached else time.perf_counter() - started
    made = runtime.read_ir(path)
    return QuantizedIR(path, Quantization(
        ir=str(path), given=False, quantized_ops=quantized_ops(made), images=sets.images,
        calibration=len(sets.calibration), held_apart=len(sets.held_apart), options=options, nncf_version=version,
        seconds=seconds, cached=cached, command=command, transformer=transformer,
        images_dir=str(images_dir) if sets.images and images_dir else None))


def _quantized(runtime: Runtime, model: ov.Model, sets: CalibrationSets, options: Int8Options,
               transformer: bool) -> ov.Model:
    if options.max_drop is None:
        return nncf_backend.quantize(model, sets.calibration, options, transformer)
    fp32 = runtime.core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    reference = [outputs_of(fp32, inputs) for inputs in sets.held_apart]
    del fp32
    validate = agreement_with(reference, class_score_outputs(model))
    return nncf_backend.quantize_with_accuracy_control(model, sets.calibration,
                                                       list(enumerate(sets.held_apart)), validate, options,
                                                       transformer)


def quantize_command(model: Path, options: Int8Options, images_dir: Path | None, shapes: dict[str, list[int]],
                     layouts: dict[str, str]) -> str:
    """The `ov-tuner quantize` line that writes this INT8 IR beside the model, for a deployment to load."""
    words = ["ov-tuner", "quantize", str(model), "-o", str(int8_ir_path(model))]
    if images_dir is not None:
        words += ["--images", str(images_dir)]
    if options.preset is not Preset.PERFORMANCE:
        words += ["--preset", options.preset.value]
    if options.subset_size is not None:
        words += ["--subset-size", str(options.subset_size)]
    if options.max_drop is not None:
        words += ["--int8-max-drop", f"{options.max_drop:g}"]
    if shapes:
        words += ["--shape", ",".join(f"{name}[{','.join(map(str, dims))}]" for name, dims in shapes.items())]
    if layouts:
        words += ["--layout", ",".join(f"{name}[{layout}]" for name, layout in layouts.items())]
    return shlex.join(words)
