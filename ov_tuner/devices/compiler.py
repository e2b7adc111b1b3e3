"""Compiling a configuration, one door for the sweep and the jobs: each precision's model read (and prepared) once,
reshaped for a configuration's batch, compiled on its device, with a compile cache where that pays.

A compile cache pays where compiling is slow: on a GPU (seconds to minutes) and on the virtual devices that
include one. On a CPU a compile takes a tenth of a second and writing the cache makes the first one slower, so
the cache is used there only when the user names its folder (--cache-dir PATH). Which compiles came from the
cache is read back (LOADED_FROM_CACHE) and stored.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import openvino as ov

from ov_tuner.devices.decisions import is_gpu
from ov_tuner.devices.modelfile import ModelSource
from ov_tuner.devices.runtime import Runtime
from ov_tuner.schema import CompileInfo, CompileKey, DeviceInfo, Precision


def cache_pays(device: DeviceInfo) -> bool:
    """Whether compiling on `device` is slow enough for a compile cache to cut a sweep's time."""
    return is_gpu(device) or bool(device.members) or device.name.split(".")[0] == "NPU"


class Compiler:
    """The models of one source, one per precision, read when first needed and kept, and how to compile them.

    `int8` gives the INT8 IR (NNCF's, ov_tuner.quantize: made above this layer), asked once. `shapes` (the user's
    --shape) go in at every reshape; `prepare` instead changes each model once after reading it (the sweep's layouts,
    shapes and image preprocessing). `cache_dir` is the compile cache, used where it pays or `cache_everywhere`."""

    def __init__(self, runtime: Runtime, source: ModelSource, int8: Callable[[], Path] | None = None, *,
                 shapes: dict[str, list[int]] | None = None, prepare: Callable[[ov.Model], ov.Model] | None = None,
                 cache_dir: Path | None = None, cache_everywhere: bool = False) -> None:
        self.runtime, self.source = runtime, source
        self.shapes = shapes or {}
        self.cache_dir, self.cache_everywhere = cache_dir, cache_everywhere
        self._int8, self._prepare = int8, prepare
        self._paths: dict[Precision, Path] = {}
        self._models: dict[Precision, ov.Model] = {}

    def path(self, precision: Precision) -> Path:
        """The IR `precision` compiles: the model's own (FP16-compressed for fp16), or the INT8 IR `int8` gives."""
        if precision not in self._paths:
            self._paths[precision] = (self._int8() if precision is Precision.INT8 and self._int8 is not None
                                      else self.runtime.ir_path(self.source, precision))
        return self._paths[precision]

    def model(self, precision: Precision, batch: int | None = None) -> ov.Model:
        """The precision's model, read and prepared the first time; reshaped for `batch` where given (raises
        ModelError where it cannot take it)."""
        if precision not in self._models:
            model = self.runtime.read_ir(self.path(precision))
            self._models[precision] = self._prepare(model) if self._prepare is not None else model
        model = self._models[precision]
        if batch is not None:
            self.runtime.reshape(model, batch, self.shapes)
        return model

    def compile(self, key: CompileKey, device: DeviceInfo, extra: dict[str, str] | None = None,
                ) -> tuple[ov.CompiledModel, CompileInfo]:
        """Compile one configuration and read back what the device chose (raises PointFailure where it cannot).
        `extra` properties (PERF_COUNT, INFERENCE_NUM_THREADS) are passed on, not recorded as the configuration."""
        model = self.model(key.precision, key.batch)
        cache = ({"CACHE_DIR": str(self.cache_dir)}
                 if self.cache_dir is not None and (self.cache_everywhere or cache_pays(device)) else {})
        return self.runtime.compile(model, key, device, self.path(key.precision), {**cache, **(extra or {})})
