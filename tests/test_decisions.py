"""ov-tuner's GPU decisions, on property sets recorded on real GPUs (tests/data/igpu_properties.json, each cited):
pure functions over data, no runtime and no fake of one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ov_tuner.devices.compiler import cache_pays
from ov_tuner.devices.decisions import (
    GPU_REQUEST_BOUND,
    MergeReason,
    auto_nireq,
    auto_precisions,
    auto_streams,
    compile_properties,
    device_info,
    precision_hint,
    request_bound,
    virtual_hints,
    virtual_info,
)
from ov_tuner.devices.strings import virtual_members
from ov_tuner.schema import CompileKey, DeviceInfo, Mode, Precision
from ov_tuner.schema.devices import auto_batched

RECORDS = json.loads((Path(__file__).parent / "data" / "igpu_properties.json").read_text())
DEVICES = {record["label"].split(" (")[0]: record for record in RECORDS["devices"]}
UHD_630, IRIS_XE, H100 = "Intel UHD Graphics 630", "Intel Iris Xe Graphics", "NVIDIA H100 through OpenVINO's GPU plugin"


def recorded(label: str) -> DeviceInfo:
    record = DEVICES[label]
    return device_info(record["name"], record["properties"])


def cpu(cores: int = 2) -> DeviceInfo:
    return DeviceInfo("CPU", "a CPU", (1, cores), 1, ("FP32", "INT8"), "f32")


@pytest.mark.parametrize("label", [UHD_630, IRIS_XE, H100])
def test_recorded_gpus_read_as_what_they_reported(label: str) -> None:
    gpu = recorded(label)
    assert gpu.streams_range == (1, 2)  # an iGPU's RANGE_FOR_STREAMS
    assert auto_streams(gpu) == (1, 2)
    assert "FP32" in gpu.capabilities


def test_the_precision_hint_is_explicit_on_every_gpu_whatever_its_default() -> None:
    xe = recorded(IRIS_XE)
    assert xe.default_precision == "f16"  # what an unqualified compile would run
    assert xe.device_type == "integrated"
    assert precision_hint(Precision.FP32, xe) == "f32"  # so fp32 must ask for f32
    assert precision_hint(Precision.FP16, xe) == "f16" and xe.supports_f16
    assert precision_hint(Precision.FP16, recorded(UHD_630)) == "f16"
    h100 = recorded(H100)  # lists no FP16: the FP16 IR's weights run at f32 there (and its compiles fail)
    assert not h100.supports_f16 and precision_hint(Precision.FP16, h100) == "f32"
    assert h100.default_precision == "f16" and h100.device_type == "discrete"
    grid = compile_properties(CompileKey("GPU.0", Precision.FP32, 1, 2), xe)
    # A grid point runs as a throughput deployment does, with its own streams, and never auto-batched.
    assert grid == {"INFERENCE_PRECISION_HINT": "f32", "NUM_STREAMS": "2", "PERFORMANCE_HINT": "THROUGHPUT",
                    "ALLOW_AUTO_BATCHING": "NO"}


def test_an_explicit_cpu_point_carries_the_throughput_hint_and_its_own_streams() -> None:
    assert compile_properties(CompileKey("CPU", Precision.BF16, 1, 16), cpu(16)) == {
        "PERFORMANCE_HINT": "THROUGHPUT", "NUM_STREAMS": "16", "INFERENCE_PRECISION_HINT": "bf16"}


def test_openvino_default_sets_the_throughput_hint_and_nothing_else() -> None:
    """What `benchmark_app -hint throughput` runs: no precision hint, no streams, no --set property."""
    for device in (cpu(16), recorded(IRIS_XE)):
        key = CompileKey(device.name, Precision.FP32, 1, 0, Mode.DEFAULT, (("INFERENCE_NUM_THREADS", "1"),))
        assert compile_properties(key, device) == {"PERFORMANCE_HINT": "THROUGHPUT"}


def with_capabilities(*capabilities: str, default: str = "f32") -> DeviceInfo:
    return DeviceInfo("CPU", "a CPU", (1, 16), 1, ("FP32", *capabilities, "INT8", "BIN"), default)


# OPTIMIZATION_CAPABILITIES as OpenVINO 2026.4.1 reported them: a 16-core Xeon with AMX (shared/data's GPU plugin
# record lists its CPU), an AMD EPYC with AVX512-BF16 (FIELD_NOTES), this project's AVX2-only EPYC.
AMX_XEON = with_capabilities("BF16", "WINOGRAD", "FP16", default="bf16")
AVX512_BF16_EPYC = with_capabilities("BF16", default="bf16")
AVX2_EPYC = with_capabilities()


@pytest.mark.parametrize(("device", "swept", "merged"), [
    (AMX_XEON, (Precision.FP32, Precision.BF16, Precision.FP16), ()),
    (AVX512_BF16_EPYC, (Precision.FP32, Precision.BF16), (Precision.FP16,)),
    (AVX2_EPYC, (Precision.FP32,), (Precision.BF16, Precision.FP16)),
])
def test_auto_sweeps_fp32_and_what_the_cpu_runs_as_math_of_its_own(device: DeviceInfo, swept: tuple[Precision, ...],
                                                                   merged: tuple[Precision, ...]) -> None:
    found, left = auto_precisions(device)
    assert found == swept
    assert tuple(m.precision for m in left) == merged
    assert all(m.measured_as is Precision.FP32 and m.reason is MergeReason.NO_CAPABILITY for m in left)
    assert device.default_precision in {p.hint for p in found}  # the device's own default is always swept
    fp16 = next((m for m in left if m.precision is Precision.FP16), None)
    assert fp16 is None or fp16.ran == "f32 math, f16 weights"


def test_auto_on_gpus_sweeps_fp16_only_where_it_runs_f16_math() -> None:
    assert auto_precisions(recorded(IRIS_XE))[0] == (Precision.FP32, Precision.FP16)  # its default, f16
    assert auto_precisions(recorded(UHD_630))[0] == (Precision.FP32, Precision.FP16)
    swept, merged = auto_precisions(recorded(H100))  # defaults to f16 but lists no FP16: its FP16 IR fails
    assert swept == (Precision.FP32,) and {m.precision for m in merged} == {Precision.FP16, Precision.BF16}


def test_auto_on_a_virtual_device_is_fp32_and_says_why() -> None:
    swept, merged = auto_precisions(virtual_info("AUTO:GPU,CPU", [recorded(IRIS_XE), AMX_XEON]))
    assert swept == (Precision.FP32,) and all(m.reason is MergeReason.VIRTUAL for m in merged)


def test_requests_on_a_gpu_double_far_beyond_twice_its_streams() -> None:
    for label in (UHD_630, IRIS_XE, H100):
        gpu = recorded(label)
        assert request_bound(gpu) == GPU_REQUEST_BOUND == 32
        assert auto_nireq(auto_streams(gpu), gpu) == (1, 2, 4, 8, 16, 32)
    assert request_bound(cpu(2)) == 4 and auto_nireq((1, 2), cpu(2)) == (1, 2, 4)  # a CPU: two per stream
    assert request_bound(cpu(16)) == 32


def test_auto_batching_is_told_from_the_compiled_models_read_back() -> None:
    batched = [c for c in RECORDS["compiled"] if "ALLOW_AUTO_BATCHING=NO" not in c["label"]]
    assert batched and all(auto_batched(c["read_back"]) for c in batched)
    unbatched = next(c for c in RECORDS["compiled"] if "ALLOW_AUTO_BATCHING=NO" in c["label"])
    assert not auto_batched(unbatched["read_back"])
    beside = compile_properties(CompileKey("GPU.0", Precision.FP32, 1, 0, Mode.THROUGHPUT_UNBATCHED),
                                recorded(IRIS_XE))
    assert beside == {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "THROUGHPUT",
                      "ALLOW_AUTO_BATCHING": "NO"}


def test_virtual_devices_take_hints_and_their_members_bounds() -> None:
    assert virtual_members("AUTO:GPU,CPU") == ("GPU", "CPU")
    assert virtual_members("BATCH:GPU(4)") == ("GPU",)
    assert virtual_members("HETERO:GPU.0,CPU") == ("GPU.0", "CPU") and virtual_members("CPU") == ()
    auto = virtual_info("AUTO:GPU,CPU", [recorded(IRIS_XE), cpu(16)])
    assert auto.members == ("GPU.0", "CPU") and auto.streams_range is None
    assert request_bound(auto) == 32 + 32 and auto.supports_f16  # a member runs f16: the fp16 hint is f16
    assert request_bound(virtual_info("BATCH:CPU(4)", [cpu(2)])) == 16
    assert virtual_hints("AUTO:GPU,CPU") == (Mode.LATENCY, Mode.THROUGHPUT, Mode.CUMULATIVE_THROUGHPUT)
    assert virtual_hints("MULTI:GPU,CPU") == (Mode.THROUGHPUT,)
    cumulative = compile_properties(CompileKey("AUTO:GPU,CPU", Precision.FP32, 1, 0, Mode.CUMULATIVE_THROUGHPUT),
                                    auto)
    assert cumulative["PERFORMANCE_HINT"] == "CUMULATIVE_THROUGHPUT"
    assert cumulative["ENABLE_STARTUP_FALLBACK"] == "NO"  # no measured inference on the CPU stand-in


def test_a_compile_cache_is_used_where_compiling_is_slow() -> None:
    assert cache_pays(recorded(IRIS_XE)) and cache_pays(recorded(H100))
    assert cache_pays(virtual_info("AUTO:GPU,CPU", [recorded(IRIS_XE), cpu()]))
    assert not cache_pays(cpu())


def test_set_properties_join_the_compile() -> None:
    key = CompileKey("GPU.0", Precision.FP16, 1, 2, settings=(("GPU_QUEUE_THROTTLE", "LOW"),))
    assert compile_properties(key, recorded(IRIS_XE)) == {"INFERENCE_PRECISION_HINT": "f16", "NUM_STREAMS": "2",
                                                          "PERFORMANCE_HINT": "THROUGHPUT",
                                                          "ALLOW_AUTO_BATCHING": "NO", "GPU_QUEUE_THROTTLE": "LOW"}
