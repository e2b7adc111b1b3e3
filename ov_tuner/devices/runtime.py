"""The door to OpenVINO: devices, reading, reshaping, FP16 compression, compiling (model files, native output and
read-back live beside it: ov_tuner.devices.modelfile, .native, .readback; what a sweep or a job compiles goes through
ov_tuner.devices.compiler).

After every compile it reads back what the device actually chose, because requested and effective
properties differ (an f16 hint may run bf16, a plugin may lower NUM_STREAMS).
"""

from __future__ import annotations

import errno
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import openvino as ov

from ov_tuner.devices import decisions
from ov_tuner.devices.modelfile import (
    ModelSource,
    batch_index,
    check_shapes,
    convert,
    example_dims,
    shape_text,
)
from ov_tuner.devices.native import PointFailure, native_output_kept, ov_error_text, with_log
from ov_tuner.devices.readback import compile_info
from ov_tuner.devices.strings import is_virtual, virtual_members
from ov_tuner.errors import BadInputError, DeviceError, Input, ModelError, OutputError
from ov_tuner.model.cache import cache_dir
from ov_tuner.model.generated import fill_inputs
from ov_tuner.schema import CompileInfo, CompileKey, DeviceInfo, Precision


class Runtime:
    """An OpenVINO Core with the operations ov-tuner needs, each raising an OvTunerError on bad input."""

    def __init__(self) -> None:
        self.core = ov.Core()

    # -- devices -------------------------------------------------------------------------------

    def available_devices(self) -> list[str]:
        return list(self.core.available_devices)

    def _property(self, device: str, name: str) -> object | None:
        try:
            return self.core.get_property(device, name)
        except RuntimeError:
            return None

    def device_info(self, device: str) -> DeviceInfo:
        """What a real device reports about itself (see ov_tuner.devices.decisions.device_info)."""
        names = ("FULL_DEVICE_NAME", "RANGE_FOR_STREAMS", "OPTIMAL_NUMBER_OF_INFER_REQUESTS",
                 "INFERENCE_PRECISION_HINT", "OPTIMIZATION_CAPABILITIES", "DEVICE_TYPE")
        return decisions.device_info(device, {n: v for n in names if (v := self._property(device, n)) is not None})

    def resolve_devices(self, requested: tuple[str, ...]) -> list[DeviceInfo]:
        """DeviceInfo for each requested device, or one error naming the device as written and what is missing. A
        virtual device (AUTO:GPU,CPU, MULTI:..., HETERO:..., BATCH:GPU(4)) needs each of its members present; plain
        AUTO and MULTI run over every device present."""
        present = self.available_devices()
        infos = []
        for name in requested:
            members = virtual_members(name) or (tuple(present) if is_virtual(name) else ())
            missing = [m for m in (members or (name,)) if not _present(m, present)]
            if missing and members:
                raise DeviceError(
                    f"device {name} needs {', '.join(missing)}, which is not present on this machine; present: "
                    f"{', '.join(present)}. Name members that are present (`ov-tuner devices` lists them)")
            if missing:
                raise DeviceError(
                    f"device {name} is not present on this machine; present: {', '.join(present)}. Pick one of "
                    f"those with {Input.DEVICE} (`ov-tuner devices` lists them)"
                )
            infos.append(decisions.virtual_info(name, [self.device_info(m) for m in members]) if members
                         else self.device_info(name))
        return infos

    def check_settings(self, devices: list[DeviceInfo], axes: dict[str, tuple[str, ...]]) -> None:
        """Every --set key is a property each real device lets one set, and each value one it accepts: the device
        itself judges (each value is set, then the default put back). Raises one line naming what is valid."""
        for device in (d for d in devices if not d.members):
            supported = self._property(device.name, "SUPPORTED_PROPERTIES")
            settable = sorted(k for k, mode in supported.items() if str(mode) == "RW") if isinstance(
                supported, dict) else []
            for key, values in axes.items():
                if key not in settable:
                    raise BadInputError(f"{Input.SETTINGS} {key}: {device.name} has no property {key} one can set; "
                                        f"it has {', '.join(settable)}")
                default = self.core.get_property(device.name, key)
                for value in values:
                    try:
                        self.core.set_property(device.name, {key: value})
                    except RuntimeError as e:
                        raise BadInputError(f"{Input.SETTINGS} {key}={value}: {device.name} refuses it "
                                            f"({ov_error_text(e)}); give a value it takes") from e
                    finally:
                        self.core.set_property(device.name, {key: default})

    # -- models --------------------------------------------------------------------------------

    def read_model(self, source: ModelSource, precision: Precision) -> ov.Model:
        """The model with FP32 weights, or the FP16-compressed IR (converted once, then cached)."""
        return self.read_ir(self.ir_path(source, precision))

    def ir_path(self, source: ModelSource, precision: Precision) -> Path:
        """The IR that `precision` compiles: the source IR, or one converted from the source (ONNX,
        TensorFlow, TFLite, PaddlePaddle) and cached by its hash, FP16-compressed for fp16. INT8 has no IR here:
        NNCF makes it from calibration data (ov_tuner.quantize)."""
        if precision is Precision.INT8:
            raise ModelError("int8 runs an IR that NNCF makes from calibration data: sweep it (ov-tuner sweep "
                             f"{Input.PRECISION} fp32,int8), or make it with `ov-tuner quantize` and give that IR")
        if source.path.suffix == ".xml":
            fp32 = source.path
        else:
            fp32 = self.cached_ir(source, source.name, lambda: convert(source), compress=False)
        if not precision.fp16_weights:
            return fp32
        return self.cached_ir(source, f"{source.name}_fp16", lambda: self.read_ir(fp32), compress=True)

    def read_ir(self, path: Path) -> ov.Model:
        with native_output_kept() as logged:
            try:
                return self.core.read_model(path)
            except RuntimeError as e:
                raise ModelError(
                    f"{path} is not a model OpenVINO can read ({ov_error_text(e)}); "
                    "give an OpenVINO IR (.xml with its .bin) or an ONNX file"
                ) from with_log(e, logged())

    @staticmethod
    def cached_ir_path(source: ModelSource, stem: str) -> Path:
        """Where cached_ir keeps an IR derived from `source`."""
        return cache_dir() / "ir" / source.sha256[:24] / f"{stem}.xml"

    @staticmethod
    def cached_ir(source: ModelSource, stem: str, make: Callable[[], ov.Model], compress: bool) -> Path:
        """An IR derived from `source`, made once and kept under the cache, keyed by the source's hash."""
        target = Runtime.cached_ir_path(source, stem)
        if not target.exists():
            try:  # before `make`, which may take NNCF minutes
                target.parent.mkdir(parents=True, exist_ok=True)
                if not os.access(target.parent, os.W_OK | os.X_OK):
                    raise PermissionError(errno.EACCES, "read-only", str(target.parent))
            except OSError as e:
                raise OutputError(f"cannot keep converted models under {cache_dir()} ({e.strerror}: "
                                  f"{e.filename}); set OV_TUNER_CACHE to a writable folder") from e
            model = make()
            # Write beside the target and rename, so an interrupted save never leaves a half IR.
            with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
                tmp_xml = Path(tmp) / target.name
                with native_output_kept():
                    ov.save_model(model, tmp_xml, compress_to_fp16=compress)
                tmp_xml.with_suffix(".bin").replace(target.with_suffix(".bin"))
                tmp_xml.replace(target)
        return target

    @staticmethod
    def reshape(model: ov.Model, batch: int, shapes: dict[str, list[int]]) -> None:
        """Make every input static: `shapes` (by input name, "" for all) first, then `batch` on each input's
        batch axis (from its layout: see set_layouts)."""
        check_shapes(model, shapes)
        new_shapes: dict[ov.Output, ov.PartialShape] = {}
        dynamic: list[str] = []
        for port in model.inputs:
            name = port.get_any_name()
            given = next((shapes[n] for n in port.get_names() if n in shapes), shapes.get(""))
            dims = list(ov.PartialShape(given) if given is not None else port.get_partial_shape())
            axis = batch_index(port)
            if axis is None and batch != 1:
                layout = ov.layout_helpers.get_layout(port).to_string()
                raise ModelError(f"input {name} has layout {layout} with no batch dimension (N); give its layout "
                                 f"with {Input.LAYOUT}, e.g. {Input.LAYOUT} {name}[NCHW], or sweep {Input.BATCH} 1")
            if dims and axis is not None:
                dims[axis] = ov.Dimension(batch)
            shape = ov.PartialShape(dims)
            if shape.is_dynamic:
                dynamic.append(f"{name}{shape_text(shape)}")
                if len(dynamic) == 1:
                    example = f"{name}[{','.join(example_dims(shape, axis, batch))}]"
                    no_batch = "" if axis is not None else (
                        f" (its layout {ov.layout_helpers.get_layout(port).to_string()} has no N, so no batch axis)")
            new_shapes[port] = shape
        if dynamic:
            raise ModelError(f"input {', '.join(dynamic)} has dynamic dimensions besides the batch{no_batch}; "
                             f"give them with {Input.SHAPE}, e.g. {Input.SHAPE} {example}")
        try:
            with native_output_kept():  # OpenVINO's passes can report there (OV_ENABLE_PROFILE_PASS)
                model.reshape(new_shapes)
        except RuntimeError as e:
            wanted = ", ".join(f"{port.get_any_name()}{shape_text(shape)}" for port, shape in new_shapes.items())
            inputs = ", ".join(f"{p.get_any_name()}{shape_text(p.get_partial_shape())}" for p in model.inputs)
            hints = [f"check {Input.SHAPE} against the model's own inputs, {inputs}" if shapes
                     else f"its own inputs are {inputs}"]
            if batch != 1:
                hints.insert(0, f"sweep {Input.BATCH} 1 or export the model with a dynamic batch")
            raise ModelError(f"model {model.friendly_name} cannot take input {wanted} ({ov_error_text(e)}); "
                             f"{'; '.join(hints)}") from e

    # -- compiling -----------------------------------------------------------------------------

    def compile(self, model: ov.Model, key: CompileKey, device: DeviceInfo, ir_path: Path | None = None,
                extra: dict[str, str] | None = None) -> tuple[ov.CompiledModel, CompileInfo]:
        """Compile a read model for one configuration, read back what the device chose, and time the first inference
        (under ov_tuner.devices.compiler.Compiler, and the cold-start probe that times reading apart).

        What is asked comes from decisions.compile_properties. `extra` properties (CACHE_DIR, PERF_COUNT) are
        passed on but not recorded as part of the configuration. Raises PointFailure when this configuration
        cannot run.
        """
        requested = decisions.compile_properties(key, device)
        with native_output_kept() as logged:
            try:
                start = time.perf_counter_ns()
                compiled = self.core.compile_model(model, key.device, {**requested, **(extra or {})})
                compile_ms = (time.perf_counter_ns() - start) / 1e6
            except (RuntimeError, MemoryError) as e:
                raise PointFailure("compile", with_log(e, logged())) from e
            try:
                request = compiled.create_infer_request()
                fill_inputs(request)
                start = time.perf_counter_ns()
                request.infer()
                first_infer_ms = (time.perf_counter_ns() - start) / 1e6
                del request
            except (RuntimeError, MemoryError) as e:
                del compiled
                raise PointFailure("first inference", with_log(e, logged())) from e
            native_log = logged()
        info = compile_info(compiled, key, requested, compile_ms, first_infer_ms, ir_path,
                            cached="CACHE_DIR" in (extra or {}))
        return compiled, replace(info, native_log=native_log)


def _present(device: str, present: list[str]) -> bool:
    """GPU is present when GPU.0 is."""
    return device in present or any(p.startswith(device + ".") for p in present)
