"""What ov-tuner decides from a device's properties: pure functions, no OpenVINO import.

The runtime feeds them the properties OpenVINO reports on this machine; the tests feed them property sets
recorded on real Intel iGPUs (tests/data/igpu_properties.json), so the GPU path is right by construction
on machines that have no GPU. Properties come either as OpenVINO's Python objects or as the text
`hello_query_device` prints ("1, 2", "FP32 BIN FP16 INT8", "<Type: 'float16'>").

The decisions:
- which streams `--streams auto` sweeps: 1, 2, 4, ... up to the device's RANGE_FOR_STREAMS maximum;
- how far requests may double (`--nireq auto`, smart search): twice the most streams on a CPU, where each
  stream needs at most two; GPU_REQUEST_BOUND on a GPU, where small models need many requests in flight to
  hide the host's submission overhead (benchmark_app itself starts at 16 on a GPU);
- which precisions `--precision auto` sweeps: fp32, and each other precision the device runs as math of its
  own (bf16 where it lists BF16, fp16 where it lists FP16); the others run f32 math there, so they are
  measured once, as fp32;
- the precision hint: set on every compile but the "OpenVINO default" baseline, f32 for fp32 (a GPU runs
  f16 and many CPUs bf16 by default whatever the IR), f16 for fp16 only where the device lists FP16 in
  OPTIMIZATION_CAPABILITIES;
- how an explicit point is compiled: the way a throughput deployment runs, PERFORMANCE_HINT=THROUGHPUT with
  its own NUM_STREAMS (the CPU plugin honours the count; the hint still decides whether SMT siblings are
  used), and on a GPU ALLOW_AUTO_BATCHING=NO, so that the point runs the streams and requests it names;
- whether a THROUGHPUT compile was auto-batched (the compiled model then reports AUTO_BATCH_TIMEOUT), which
  earns a second THROUGHPUT baseline with ALLOW_AUTO_BATCHING=NO beside it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ov_tuner.schema import CompileKey, DeviceInfo, Merged, MergeReason, Mode, Precision

# The most requests a GPU's request counts double up to (unless its optimal count x 4 is more).
GPU_REQUEST_BOUND = 32


def device_info(name: str, properties: Mapping[str, object]) -> DeviceInfo:
    """A device's DeviceInfo from the properties OpenVINO reports for it (objects or printed text)."""
    streams = _ints(properties.get("RANGE_FOR_STREAMS"))
    optimal = _ints(properties.get("OPTIMAL_NUMBER_OF_INFER_REQUESTS"))
    precision = properties.get("INFERENCE_PRECISION_HINT")
    return DeviceInfo(
        name=name,
        full_name=str(properties.get("FULL_DEVICE_NAME") or name),
        streams_range=(streams[0], streams[1]) if len(streams) >= 2 else None,
        optimal_nireq=optimal[0] if optimal else None,
        capabilities=tuple(_words(properties.get("OPTIMIZATION_CAPABILITIES"))),
        default_precision=type_name(precision) if precision is not None else None,
        device_type=_device_type(properties.get("DEVICE_TYPE")),
    )


def virtual_info(name: str, members: list[DeviceInfo]) -> DeviceInfo:
    """A virtual device's DeviceInfo: its members' capabilities together, no stream range of its own, and its
    members' request bounds summed (times the batch, on BATCH:DEVICE(n): each request is one n-th of a batch)."""
    capabilities = tuple(dict.fromkeys(c for m in members for c in m.capabilities))
    batch = re.search(r"\((\d+)\)$", name)
    bound = sum(request_bound(m) for m in members) * (int(batch.group(1)) if batch else 1)
    return DeviceInfo(name=name, full_name=f"{name.split(':')[0]} over {', '.join(m.name for m in members)}",
                      streams_range=None, optimal_nireq=None, capabilities=capabilities, default_precision=None,
                      members=tuple(m.name for m in members), member_bound=bound)


def virtual_hints(name: str) -> tuple[Mode, ...]:
    """The performance hints a virtual device is swept under: CUMULATIVE_THROUGHPUT is AUTO's way to run every
    member at once (MULTI runs them all under THROUGHPUT already)."""
    head = name.split(":")[0]
    if head == "AUTO":
        return (Mode.LATENCY, Mode.THROUGHPUT, Mode.CUMULATIVE_THROUGHPUT)
    if head == "MULTI":
        return (Mode.THROUGHPUT,)
    return (Mode.LATENCY, Mode.THROUGHPUT)


# The capability a device lists where a precision runs as math of its own.
PRECISION_CAPABILITY = {Precision.BF16: "BF16", Precision.FP16: "FP16"}


def auto_precisions(device: DeviceInfo) -> tuple[tuple[Precision, ...], tuple[Merged, ...]]:
    """What `--precision auto` sweeps on `device`: fp32, then bf16 and fp16 where the device lists them (the
    device's own default precision is one of these where it runs it: bf16 on AMX and AVX512-BF16 CPUs, f16 on
    Intel GPUs); and the precisions left out, each measured once as fp32. Compiles that run the same math as
    fp32 are merged later too, from what they read back (MergeReason.SAME_MATH)."""
    if device.members:
        return (Precision.FP32,), tuple(Merged(device.name, p, Precision.FP32, MergeReason.VIRTUAL)
                                        for p in PRECISION_CAPABILITY)
    swept = [Precision.FP32]
    merged = []
    for precision, capability in PRECISION_CAPABILITY.items():
        if capability in device.capabilities:
            swept.append(precision)
        else:
            weights = "f32 math, f16 weights" if precision.fp16_weights else "f32"
            merged.append(Merged(device.name, precision, Precision.FP32, MergeReason.NO_CAPABILITY, weights))
    return tuple(swept), tuple(merged)


def is_gpu(device: DeviceInfo) -> bool:
    return device.name.split(".")[0] == "GPU"


def precision_hint(precision: Precision, device: DeviceInfo) -> str:
    """The INFERENCE_PRECISION_HINT to request: f16 only where the device lists FP16, else the FP16 weights run at
    f32; always explicit, since a GPU runs f16 and many CPUs bf16 when nothing is asked."""
    if precision is Precision.FP16 and not device.supports_f16:
        return "f32"
    return precision.hint


def powers_of_two_up_to(limit: int) -> tuple[int, ...]:
    """1, 2, 4, ... below `limit`, and `limit` itself."""
    values = [1]
    while values[-1] * 2 < limit:
        values.append(values[-1] * 2)
    if values[-1] != limit:
        values.append(limit)
    return tuple(values)


def auto_streams(device: DeviceInfo) -> tuple[int, ...]:
    """1, 2, 4, ... up to the device's RANGE_FOR_STREAMS maximum (1 when the device does not say)."""
    return powers_of_two_up_to(device.streams_range[1] if device.streams_range else 1)


def request_bound(device: DeviceInfo) -> int:
    """How far request counts double: GPU_REQUEST_BOUND (or 4 x the optimal count) on a GPU; the sum of the
    members' bounds on a virtual device; twice the most streams (and at least the optimal count) elsewhere."""
    if device.members:
        return device.member_bound
    if is_gpu(device):
        return max(GPU_REQUEST_BOUND, 4 * (device.optimal_nireq or 1))
    most_streams = device.streams_range[1] if device.streams_range else 1
    return max(2 * most_streams, device.optimal_nireq or 1)


def auto_nireq(streams: tuple[int, ...], device: DeviceInfo) -> tuple[int, ...]:
    """1, 2, 4, ... up to the device's request bound; with streams given by hand on a CPU, up to twice the most
    of them (two requests per stream let a stream start its next inference while the host collects the last)."""
    if device.members or is_gpu(device):
        return powers_of_two_up_to(request_bound(device))
    return powers_of_two_up_to(max(2 * max(streams), device.optimal_nireq or 1))


def type_name(value: object) -> str:
    """'f16' for ov.Type.f16 and for the text "<Type: 'float16'>"; other names as OpenVINO spells them."""
    text = getattr(value, "get_type_name", lambda: str(value))()
    found = re.search(r"Type: '(\w+)'", text)
    name = found.group(1) if found else text
    return {"float32": "f32", "float16": "f16", "bfloat16": "bf16"}.get(name, name)


def _ints(value: object) -> list[int]:
    if value is None:
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, list | tuple):
        return [int(v) for v in value]
    return [int(v) for v in re.findall(r"\d+", str(value))]


def _words(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return re.findall(r"[A-Z0-9_]+", str(value))


def _device_type(value: object) -> str | None:
    """'integrated' or 'discrete', from ov's Type.INTEGRATED or its text."""
    if value is None:
        return None
    text = str(getattr(value, "name", value)).upper()
    return "discrete" if "DISCRETE" in text else "integrated" if "INTEGRATED" in text else None


def compile_properties(key: CompileKey, device: DeviceInfo) -> dict[str, str]:
    """What a compile asks for. The "OpenVINO default" baseline: PERFORMANCE_HINT=THROUGHPUT and nothing else.
    Every other compile: the precision hint and the performance hint (THROUGHPUT with NUM_STREAMS for an explicit
    point, which then runs as a throughput deployment does); ALLOW_AUTO_BATCHING=NO where a GPU would
    otherwise batch requests behind an explicit point or the unbatched baseline; ENABLE_STARTUP_FALLBACK=NO on AUTO,
    so that no measured inference runs on the CPU while the GPU still compiles; then the --set properties."""
    requested = {"PERFORMANCE_HINT": key.mode.performance_hint}
    if key.mode is Mode.DEFAULT:
        return requested
    requested["INFERENCE_PRECISION_HINT"] = precision_hint(key.precision, device)
    if key.mode is Mode.EXPLICIT:
        requested["NUM_STREAMS"] = str(key.streams)
    if key.mode is Mode.THROUGHPUT_UNBATCHED or (key.mode is Mode.EXPLICIT and is_gpu(device)):
        requested["ALLOW_AUTO_BATCHING"] = "NO"
    if device.name.split(":")[0] == "AUTO":
        requested["ENABLE_STARTUP_FALLBACK"] = "NO"
    return {**requested, **dict(key.settings)}
