"""Compiling for the sweep: one door that reshapes the model for a configuration's batch, compiles it on its
device, and uses the sweep's CACHE_DIR where that pays.

A compile cache pays where compiling is slow: on a GPU (seconds to minutes) and on the virtual devices that
include one. On a CPU a compile takes a tenth of a second and writing the cache makes the first one slower, so
the cache is used there only when the user names its folder (--cache-dir PATH). Which compiles came from the
cache is read back (LOADED_FROM_CACHE) and stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import openvino as ov

from ov_tuner.devices.decisions import is_gpu
from ov_tuner.devices.runtime import Runtime
from ov_tuner.schema import CompileInfo, DeviceInfo, PointConfig, Precision


def cache_pays(device: DeviceInfo) -> bool:
    """Whether compiling on `device` is slow enough for a compile cache to cut a sweep's time."""
    return is_gpu(device) or bool(device.members) or device.name.split(".")[0] == "NPU"


@dataclass
class Compiler:
    """The sweep's models (one per precision, read once) and how to compile them for a configuration."""

    runtime: Runtime
    models: dict[Precision, ov.Model]
    ir_paths: dict[Precision, Path]
    cache_dir: Path | None = None
    cache_everywhere: bool = False

    def compile(self, config: PointConfig, device: DeviceInfo) -> tuple[ov.CompiledModel, CompileInfo]:
        """Reshape the model for the configuration's batch and compile it (raises PointFailure where it cannot)."""
        model = self.models[config.precision]
        self.runtime.reshape(model, config.batch, {})  # the user's shapes are in the model already
        extra = {}
        if self.cache_dir is not None and (self.cache_everywhere or cache_pays(device)):
            extra["CACHE_DIR"] = str(self.cache_dir)
        return self.runtime.compile(model, config.compile_key, device, self.ir_paths[config.precision], extra)
