"""The one module that talks to OpenVINO: devices, reading, reshaping, FP16 compression, compiling.

After every compile it reads back what the device actually chose, because requested and effective
properties differ (an f16 hint may run bf16, a plugin may lower NUM_STREAMS).
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

import numpy as np
import openvino as ov

from ov_tuner.devices import decisions
from ov_tuner.devices.decisions import type_name
from ov_tuner.devices.strings import is_virtual, virtual_members
from ov_tuner.errors import BadInputError, DeviceError, ModelError
from ov_tuner.schema import CompileInfo, CompileKey, DeviceInfo, Precision

# Layer types whose runtime precision tells which precision the model really executed in.
COMPUTE_LAYER_TYPES = frozenset(
    {"Convolution", "GroupConvolution", "Deconvolution", "FullyConnected", "MatMul", "Gemm"}
)
# Read back after every compile besides streams, precision and requests: they shape a run, and a hint
# baseline can differ from an explicit configuration of the same streams x requests in them.
READ_BACK_PROPERTIES = ("PERFORMANCE_HINT", "INFERENCE_NUM_THREADS", "ENABLE_CPU_PINNING", "ENABLE_HYPER_THREADING",
                        "SCHEDULING_CORE_TYPE", "ALLOW_AUTO_BATCHING", "AUTO_BATCH_TIMEOUT", "GPU_QUEUE_THROTTLE",
                        "GPU_QUEUE_PRIORITY", "GPU_HOST_TASK_PRIORITY", "MULTI_DEVICE_PRIORITIES", "SCHEDULE_POLICY")
# Read back from each member of a virtual device.
MEMBER_READ_BACK = ("NUM_STREAMS", "INFERENCE_PRECISION_HINT", "PERFORMANCE_HINT", "OPTIMAL_NUMBER_OF_INFER_REQUESTS")


# The most of OpenVINO's first meaningful line a one-line message quotes.
ERROR_LINE_CHARS = 300


def ov_error_text(error: BaseException) -> str:
    """The first line of OpenVINO's message that says what is wrong: its source-file preamble ("Exception from
    src/...", "Check '...' failed at ...") skipped, cut at ERROR_LINE_CHARS. The whole message stays with the
    exception for --verbose."""
    lines = [ln.strip() for ln in str(error).splitlines() if ln.strip()]
    kept = [ln for ln in lines if not ln.startswith(("Exception from src", "Check '"))]
    first = (kept or lines or [type(error).__name__])[0]
    return first if len(first) <= ERROR_LINE_CHARS else first[:ERROR_LINE_CHARS - 3] + "..."


class PointFailure(Exception):
    """A configuration that cannot run (compile error, out of memory, failed first inference).

    Not an OvTunerError: the sweep stores it with the point and goes on with the next configuration. Its text
    is one line ("compile: <OpenVINO's first meaningful line>"); `detail` keeps OpenVINO's whole message.
    """

    def __init__(self, phase: str, error: BaseException) -> None:
        self.phase = phase
        self.detail = str(error).strip() or repr(error)
        text = ov_error_text(error) if isinstance(error, RuntimeError) else repr(error)
        super().__init__(f"{phase}: {text}")


@dataclass(frozen=True)
class ModelSource:
    """A model file and the identity that results are keyed by."""

    path: Path
    sha256: str

    @property
    def name(self) -> str:
        return self.path.stem


def model_files(path: Path) -> list[Path]:
    """An IR is an .xml and its .bin; other formats are one file."""
    if path.suffix == ".xml" and path.with_suffix(".bin").exists():
        return [path, path.with_suffix(".bin")]
    return [path]


def open_model_source(path: Path) -> ModelSource:
    """Check the model exists and hash it: an IR's xml and bin together, a SavedModel folder's every file."""
    if path.is_dir() and not (path / "saved_model.pb").is_file():
        raise ModelError(f"model {path} is a folder; give the model file itself, e.g. {path / 'model.xml'} "
                         "(a folder works only as a TensorFlow SavedModel)")
    if not path.exists():
        raise ModelError(f"model file {path} does not exist: give the path of an OpenVINO .xml, an .onnx, "
                         "or another model OpenVINO can convert")
    digest = hashlib.sha256()
    parts = sorted(f for f in path.rglob("*") if f.is_file()) if path.is_dir() else model_files(path)
    try:
        for part in parts:
            with part.open("rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    digest.update(chunk)
    except OSError as e:
        raise ModelError(f"cannot read model file {path}: {e.strerror}; check its permissions") from e
    return ModelSource(path.resolve(), digest.hexdigest())


@contextmanager
def native_output_kept() -> Iterator[Callable[[], str]]:
    """While OpenVINO reads, converts, reshapes or compiles, what native code writes to the process's own stdout and
    stderr (file descriptors 1 and 2) goes to a temporary file instead of between ov-tuner's lines: TensorFlow's
    frontend logs there through absl, convert_model prints its arguments when it fails, a GPU driver's kernel
    compiler prints its warnings. Python's own writes (a progress bar's) still reach the terminal: sys.stdout and
    sys.stderr point at the original descriptors meanwhile. Yields what native code wrote, for the compile's
    record or the error's detail."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    python_streams = (sys.stdout, sys.stderr)
    with tempfile.TemporaryFile() as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        sys.stdout, sys.stderr = (_on_fd(stream, fd, kept)
                                  for stream, fd, kept in zip(python_streams, (1, 2), saved, strict=True))
        try:
            yield lambda: (log.seek(0), log.read().decode(errors="replace").strip())[1]
        finally:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            sys.stdout, sys.stderr = python_streams
            for fd, kept in zip((1, 2), saved, strict=True):
                os.dup2(kept, fd)
                os.close(kept)


def _on_fd(stream: TextIO, fd: int, kept: int) -> TextIO:
    """`stream`, or, where it writes to descriptor `fd`, a stream on the copy `kept` of that descriptor (left open:
    the caller closes it)."""
    try:
        writes_to_fd = stream.fileno() == fd
    except (AttributeError, OSError, ValueError):  # a stream of a test runner or a notebook: not a descriptor
        writes_to_fd = False
    if not writes_to_fd:
        return stream
    return open(kept, "w", encoding=getattr(stream, "encoding", None) or "utf-8", errors="replace",
                buffering=1, closefd=False)


def _with_log(error: Exception, log: str) -> Exception:
    """The error OpenVINO raised, with what its frontends wrote to stderr meanwhile: the text --verbose prints."""
    return RuntimeError(f"{error}\n{log}".strip()) if log else error


def _convert(source: ModelSource) -> ov.Model:
    """Any format ov.convert_model reads, as an OpenVINO model."""
    with native_output_kept() as logged:
        try:
            return ov.convert_model(str(source.path))
        except Exception as e:  # convert_model raises framework-specific errors as well as RuntimeError
            raise ModelError(
                f"{source.path} is not a model OpenVINO can read or convert ({ov_error_text(e)}); "
                "give an OpenVINO IR, ONNX, TensorFlow, TFLite or PaddlePaddle model"
            ) from _with_log(e, logged())


def cache_dir() -> Path:
    """Where converted IRs are kept: $OV_TUNER_CACHE, else ~/.cache/ov-tuner."""
    return Path(os.environ.get("OV_TUNER_CACHE", Path.home() / ".cache" / "ov-tuner"))


def _shape_text(shape: ov.PartialShape) -> str:
    return "[" + ",".join("?" if d.is_dynamic else str(d.get_length()) for d in shape) + "]"


def set_layouts(model: ov.Model, layouts: dict[str, str]) -> None:
    """Give inputs a layout (by input name, "" for every input), e.g. NCHW, NHWC, NC, N?."""
    for port in model.inputs:
        name = port.get_any_name()
        text = layouts.get(name, layouts.get(""))
        if text is None:
            continue
        layout = ov.Layout(text)
        rank = port.get_partial_shape().rank
        if rank.is_static and len(text.strip("[]")) != rank.get_length() and "..." not in text:
            raise ModelError(f"--layout: {text} has {len(text.strip('[]'))} dimensions but input {name} has "
                             f"{rank.get_length()}; give one letter per dimension, e.g. NCHW")
        port.get_node().set_layout(layout)


def _check_shapes(model: ov.Model, shapes: dict[str, list[int]]) -> None:
    """Every --shape names an input the model has, with that input's number of dimensions."""
    inputs = ", ".join(f"{p.get_any_name()}{_shape_text(p.get_partial_shape())}" for p in model.inputs)
    for name, dims in shapes.items():
        ports = [p for p in model.inputs if not name or name in p.get_names()]
        if not ports:
            raise ModelError(f"--shape: the model has no input named {name}; its inputs are {inputs}")
        for port in ports:
            rank = port.get_partial_shape().rank
            if rank.is_static and rank.get_length() != len(dims):
                example = ",".join(_example_dims(port.get_partial_shape(), batch_index(port), 1))
                raise ModelError(f"--shape: {name or 'the shape'} [{','.join(map(str, dims))}] has {len(dims)} "
                                 f"dimensions, but input {port.get_any_name()} has {rank.get_length()}; e.g. "
                                 f"--shape {port.get_any_name()}[{example}]")


def _example_dims(shape: ov.PartialShape, batch_axis: int | None, batch: int) -> list[str]:
    """A static example of a shape: the batch on its axis, 224 for any other dynamic dimension."""
    return [str(batch) if i == batch_axis else ("224" if d.is_dynamic else str(d.get_length()))
            for i, d in enumerate(shape)]


def batch_index(port: ov.Output) -> int | None:
    """The batch axis of an input: from its layout; axis 0 when it has none; None when its layout has no N."""
    layout = ov.layout_helpers.get_layout(port)
    if layout.empty:
        return 0
    if ov.layout_helpers.has_batch(layout):
        return int(ov.layout_helpers.batch_idx(layout)) % port.get_partial_shape().rank.get_length()
    return None


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
                    "those with --device (`ov-tuner devices` lists them)"
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
                    raise BadInputError(f"--set {key}: {device.name} has no property {key} one can set; it has "
                                        f"{', '.join(settable)}")
                default = self.core.get_property(device.name, key)
                for value in values:
                    try:
                        self.core.set_property(device.name, {key: value})
                    except RuntimeError as e:
                        raise BadInputError(f"--set {key}={value}: {device.name} refuses it ({ov_error_text(e)}); "
                                            "give a value it takes") from e
                    finally:
                        self.core.set_property(device.name, {key: default})

    # -- models --------------------------------------------------------------------------------

    def read_model(self, source: ModelSource, precision: Precision) -> ov.Model:
        """The model with FP32 weights, or the FP16-compressed IR (converted once, then cached)."""
        return self._read(self.ir_path(source, precision))

    def ir_path(self, source: ModelSource, precision: Precision) -> Path:
        """The IR that `precision` compiles: the source IR, or one converted from the source (ONNX,
        TensorFlow, TFLite, PaddlePaddle) and cached by its hash, FP16-compressed for fp16."""
        if source.path.suffix == ".xml":
            fp32 = source.path
        else:
            fp32 = self._cached_ir(source, source.name, lambda: _convert(source), compress=False)
        if not precision.fp16_weights:
            return fp32
        return self._cached_ir(source, f"{source.name}_fp16", lambda: self._read(fp32), compress=True)

    def _read(self, path: Path) -> ov.Model:
        with native_output_kept() as logged:
            try:
                return self.core.read_model(path)
            except RuntimeError as e:
                raise ModelError(
                    f"{path} is not a model OpenVINO can read ({ov_error_text(e)}); "
                    "give an OpenVINO IR (.xml with its .bin) or an ONNX file"
                ) from _with_log(e, logged())

    @staticmethod
    def _cached_ir(source: ModelSource, stem: str, make: Callable[[], ov.Model], compress: bool) -> Path:
        """An IR derived from `source`, made once and kept under the cache, keyed by the source's hash."""
        target = cache_dir() / "ir" / source.sha256[:24] / f"{stem}.xml"
        if not target.exists():
            model = make()
            target.parent.mkdir(parents=True, exist_ok=True)
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
        _check_shapes(model, shapes)
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
                                 f"with --layout, e.g. --layout {name}[NCHW], or sweep --batch 1")
            if dims and axis is not None:
                dims[axis] = ov.Dimension(batch)
            shape = ov.PartialShape(dims)
            if shape.is_dynamic:
                dynamic.append(f"{name}{_shape_text(shape)}")
                if len(dynamic) == 1:
                    example = f"{name}[{','.join(_example_dims(shape, axis, batch))}]"
                    no_batch = "" if axis is not None else (
                        f" (its layout {ov.layout_helpers.get_layout(port).to_string()} has no N, so no batch axis)")
            new_shapes[port] = shape
        if dynamic:
            raise ModelError(f"input {', '.join(dynamic)} has dynamic dimensions besides the batch{no_batch}; "
                             f"give them with --shape, e.g. --shape {example}")
        try:
            with native_output_kept():  # OpenVINO's passes can report there (OV_ENABLE_PROFILE_PASS)
                model.reshape(new_shapes)
        except RuntimeError as e:
            raise ModelError(
                f"model {model.friendly_name} cannot be reshaped to batch {batch} "
                f"({ov_error_text(e)}); sweep --batch 1 or export the model with a dynamic batch"
            ) from e

    # -- compiling -----------------------------------------------------------------------------

    def compile(self, model: ov.Model, key: CompileKey, device: DeviceInfo, ir_path: Path | None = None,
                extra: dict[str, str] | None = None) -> tuple[ov.CompiledModel, CompileInfo]:
        """Compile for one configuration, read back what the device chose, and time the first inference.

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
                raise PointFailure("compile", _with_log(e, logged())) from e
            try:
                request = compiled.create_infer_request()
                fill_inputs(request)
                start = time.perf_counter_ns()
                request.infer()
                first_infer_ms = (time.perf_counter_ns() - start) / 1e6
                del request
            except (RuntimeError, MemoryError) as e:
                del compiled
                raise PointFailure("first inference", _with_log(e, logged())) from e
            native_log = logged()
        info = compile_info(compiled, key, requested, compile_ms, first_infer_ms, ir_path,
                            cached="CACHE_DIR" in (extra or {}))
        return compiled, replace(info, native_log=native_log)

    def compile_alone(self, source: ModelSource, key: CompileKey, device: DeviceInfo,
                      shapes: dict[str, list[int]] | None = None,
                      extra: dict[str, str] | None = None) -> tuple[ov.CompiledModel, CompileInfo]:
        """Read, reshape and compile one configuration on its own, for a profile or a probe. (A sweep
        reads each precision once and reshapes it per batch instead.)"""
        model = self.read_model(source, key.precision)
        self.reshape(model, key.batch, shapes or {})
        return self.compile(model, key, device, self.ir_path(source, key.precision), extra)


def _present(device: str, present: list[str]) -> bool:
    """GPU is present when GPU.0 is."""
    return device in present or any(p.startswith(device + ".") for p in present)


def executed_precision(compiled: ov.CompiledModel) -> tuple[str, str]:
    """What the compiled graph's compute layers (convolutions, matmuls) really do: the precision of their
    arithmetic (their output element type) and of their weights (the constants they read), most common first.

    The runtime graph's own 'runtimePrecision' is not the arithmetic: on a CPU without native f16, a
    convolution of the FP16-compressed IR reports f16 there while it reads and writes f32 activations.
    """
    math: Counter[str] = Counter()
    weights: Counter[str] = Counter()
    try:
        ops = compiled.get_runtime_model().get_ordered_ops()
    except RuntimeError:  # a virtual device whose member keeps its graph to itself
        return "unknown", "unknown"
    for op in ops:
        info = op.get_rt_info()
        if "layerType" not in info or info["layerType"].astype(str) not in COMPUTE_LAYER_TYPES:
            continue
        math[op.get_output_element_type(0).get_type_name()] += 1
        for i in range(1, op.get_input_size()):
            source = op.input(i).get_source_output().get_node().get_rt_info()
            if "layerType" in source and source["layerType"].astype(str) == "Const":
                weights[op.input(i).get_element_type().get_type_name()] += 1
                break
    return (math.most_common(1)[0][0] if math else "unknown", weights.most_common(1)[0][0] if weights else "unknown")


def compile_info(compiled: ov.CompiledModel, key: CompileKey, requested: dict[str, str], compile_ms: float,
                 first_infer_ms: float, ir_path: Path | None, cached: bool) -> CompileInfo:
    """What a compiled model reports it does. A virtual device has no streams or precision of its own: those come
    from its members (DEVICE_PROPERTIES), whose properties are also kept as 'CPU:NUM_STREAMS' and so on."""
    members = _members(compiled)
    streams = _get(compiled, "NUM_STREAMS")
    precision = _get(compiled, "INFERENCE_PRECISION_HINT")
    if streams is None:
        streams = sum(int(str(p.get("NUM_STREAMS", 0))) for p in members.values())
    if precision is None:
        precision = next((p["INFERENCE_PRECISION_HINT"] for p in members.values() if "INFERENCE_PRECISION_HINT" in p),
                         "unknown")
    math, weights = executed_precision(compiled)
    loaded = _get(compiled, "LOADED_FROM_CACHE")
    return CompileInfo(
        key=key,
        requested=requested,
        num_streams=int(str(streams)),
        inference_precision=type_name(precision),
        executed_precision=math,
        optimal_nireq=int(compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS")),
        execution_devices=tuple(compiled.get_property("EXECUTION_DEVICES")),
        compile_ms=compile_ms,
        first_infer_ms=first_infer_ms,
        ir_path=str(ir_path or ""),
        weights_precision=weights,
        read_back=read_back(compiled, [k for k, _ in key.settings], members),
        from_cache=bool(loaded) if cached and loaded is not None else None,
    )


def read_back(compiled: ov.CompiledModel, also: list[str] | None = None,
              members: dict[str, dict[str, object]] | None = None) -> dict[str, str]:
    """The compiled model's READ_BACK_PROPERTIES (and the `also` ones, e.g. what --set asked for) that it has, as
    text; for a virtual device, also its members' MEMBER_READ_BACK as 'CPU:NUM_STREAMS'."""
    supported = compiled.get_property("SUPPORTED_PROPERTIES")
    found = {name: property_text(compiled.get_property(name))
             for name in dict.fromkeys([*READ_BACK_PROPERTIES, *(also or [])]) if name in supported}
    for device, properties in (members or {}).items():
        found.update({f"{device}:{name}": property_text(properties[name]) for name in MEMBER_READ_BACK
                      if name in properties})
    return found


def _get(compiled: ov.CompiledModel, name: str) -> object | None:
    try:
        return compiled.get_property(name)
    except RuntimeError:
        return None


def _members(compiled: ov.CompiledModel) -> dict[str, dict[str, object]]:
    """A virtual device's members and their properties (DEVICE_PROPERTIES); {} for a real device."""
    supported = compiled.get_property("SUPPORTED_PROPERTIES")
    found = compiled.get_property("DEVICE_PROPERTIES") if "DEVICE_PROPERTIES" in supported else None
    return dict(found) if isinstance(found, dict) else {}


def property_text(value: object) -> str:
    """A property value as OpenVINO takes it in a config: 'THROUGHPUT', 'YES', 'f32', '4'."""
    if isinstance(value, bool):
        return "YES" if value else "NO"
    if isinstance(value, ov.Type):
        return value.get_type_name()
    name = getattr(value, "name", None)  # OpenVINO's enums: PerformanceMode.THROUGHPUT -> THROUGHPUT
    return name if isinstance(name, str) else str(value)


def _random_like(data: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Valid values for the tensor's type: normal floats, 0/1 for integers and booleans."""
    if data.dtype == np.bool_:
        return rng.integers(0, 2, size=data.shape).astype(bool)
    if np.issubdtype(data.dtype, np.integer):
        return rng.integers(0, 2, size=data.shape).astype(data.dtype)
    return rng.standard_normal(data.shape).astype(data.dtype)


def fill_inputs(request: ov.InferRequest, seed: int = 0) -> None:
    """Write deterministic data into the request's own input tensors, once, outside any timed loop."""
    rng = np.random.default_rng(seed)
    for port in request.model_inputs:
        data = request.get_tensor(port).data
        data[...] = _random_like(data, rng)


def input_sets(request: ov.InferRequest, count: int, seed: int = 1) -> list[dict[ov.ConstOutput, np.ndarray]]:
    """`count` different sets of host-side input arrays, for measuring what copying inputs in costs."""
    rng = np.random.default_rng(seed)
    return [{port: _random_like(request.get_tensor(port).data, rng) for port in request.model_inputs}
            for _ in range(count)]
