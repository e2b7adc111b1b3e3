"""What a compiled model reports it did: streams, precision hint, requests, the arithmetic its compute layers ran,
and the other properties that shape a run; a virtual device's members' too."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import openvino as ov

from ov_tuner.devices.decisions import type_name
from ov_tuner.schema import CompileInfo, CompileKey

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


def executed_precision(compiled: ov.CompiledModel) -> tuple[str, str]:
    """What the compiled graph's compute layers (convolutions, matmuls) really do: the precision of their
    arithmetic (the element type of the activations they read) and of their weights (the constants they read),
    most common first.

    The runtime graph's own 'runtimePrecision' is not the arithmetic: on a CPU without native f16, a
    convolution of the FP16-compressed IR reports f16 there while it reads and writes f32 activations. Nor is a
    layer's output type: a convolution that ends the model reads bf16 and runs bf16 kernels, but writes the
    model's f32 output.
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
        math[op.input(0).get_element_type().get_type_name()] += 1
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
