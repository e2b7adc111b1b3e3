"""The OpenVINO layer on the real CPU plugin: read-back of what ran, FP16 IR, reshapes, devices."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from ov_tuner.commandline.inputs import said
from ov_tuner.devices.compiler import Compiler
from ov_tuner.devices.decisions import precision_hint
from ov_tuner.devices.modelfile import open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.errors import DeviceError, ModelError
from ov_tuner.model.generated import fill_inputs
from ov_tuner.schema import CompileInfo, CompileKey, DeviceInfo, Mode, Precision


@pytest.fixture(scope="module")
def runtime() -> Runtime:
    return Runtime()


@pytest.fixture(scope="module")
def cpu(runtime: Runtime) -> DeviceInfo:
    return runtime.device_info("CPU")


def compile_tiny(runtime: Runtime, cpu: DeviceInfo, tiny_model: Path, precision: Precision,
                 streams: int = 1) -> tuple[ov.CompiledModel, CompileInfo]:
    return Compiler(runtime, open_model_source(tiny_model)).compile(CompileKey("CPU", precision, 1, streams), cpu)


def test_fp32_is_f32_even_where_the_device_default_is_not(runtime: Runtime, cpu: DeviceInfo, tiny_model: Path) -> None:
    _, info = compile_tiny(runtime, cpu, tiny_model, Precision.FP32)
    assert info.requested["INFERENCE_PRECISION_HINT"] == "f32"
    assert info.inference_precision == "f32"
    assert info.executed_precision == "f32"
    # The default is read from the device itself; on AVX-512 bf16 machines it is bf16.
    assert cpu.default_precision in {"f32", "bf16", "f16"}


def test_read_back_matches_the_compiled_model(runtime: Runtime, cpu: DeviceInfo, tiny_model: Path) -> None:
    for precision in (Precision.FP32, Precision.FP16, Precision.BF16):  # int8 has no IR without NNCF: test_int8
        compiled, info = compile_tiny(runtime, cpu, tiny_model, precision, streams=2)
        assert info.requested["INFERENCE_PRECISION_HINT"] == precision_hint(precision, cpu)
        assert info.inference_precision == compiled.get_property("INFERENCE_PRECISION_HINT").get_type_name()
        assert info.num_streams == compiled.get_property("NUM_STREAMS") == 2
        assert info.optimal_nireq == compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS")
        assert info.execution_devices == ("CPU",)
        assert info.compile_ms > 0 and info.first_infer_ms > 0


def test_the_properties_that_shape_a_run_are_read_back(runtime: Runtime, cpu: DeviceInfo, tiny_model: Path) -> None:
    compiled, info = compile_tiny(runtime, cpu, tiny_model, Precision.FP32, streams=2)
    assert {"PERFORMANCE_HINT", "INFERENCE_NUM_THREADS", "ENABLE_CPU_PINNING"} <= info.read_back.keys()
    assert info.read_back["INFERENCE_NUM_THREADS"] == str(compiled.get_property("INFERENCE_NUM_THREADS"))
    assert info.read_back["ENABLE_CPU_PINNING"] in {"YES", "NO"}
    _, hinted = Compiler(runtime, open_model_source(tiny_model)).compile(
        CompileKey("CPU", Precision.FP32, 1, 0, Mode.THROUGHPUT), cpu)
    assert hinted.read_back["PERFORMANCE_HINT"] == "THROUGHPUT"


def test_fp16_weights_at_an_f32_hint_run_f32_math(runtime: Runtime, cpu: DeviceInfo, default_model: Path) -> None:
    """What "ran" means: the compute layers' arithmetic, and the weights where they are kept in another precision."""
    no_f16 = replace(cpu, capabilities=("FP32",))  # as on a CPU without native f16: fp16 gets the f32 hint
    compiler = Compiler(runtime, open_model_source(default_model))
    _, fp16 = compiler.compile(CompileKey("CPU", Precision.FP16, 1, 1), no_f16)
    assert fp16.requested["INFERENCE_PRECISION_HINT"] == "f32"
    assert (fp16.executed_precision, fp16.weights_precision) == ("f32", "f16")
    assert fp16.ran == "f32 math, f16 weights"
    _, fp32 = compiler.compile(CompileKey("CPU", Precision.FP32, 1, 1), cpu)
    assert (fp32.ran, fp32.weights_precision) == ("f32", "f32")


def test_fp16_hint_only_where_the_device_lists_fp16(cpu: DeviceInfo) -> None:
    assert precision_hint(Precision.FP16, cpu) == ("f16" if "FP16" in cpu.capabilities else "f32")
    no_f16 = DeviceInfo(cpu.name, cpu.full_name, cpu.streams_range, cpu.optimal_nireq, ("FP32",), "f32")
    assert precision_hint(Precision.FP16, no_f16) == "f32"
    assert precision_hint(Precision.BF16, no_f16) == "bf16"


def test_fp16_ir_has_f16_weights_and_is_made_once(runtime: Runtime, tiny_model: Path, private_ir_cache: Path) -> None:
    source = open_model_source(tiny_model)
    model = runtime.read_model(source, Precision.FP16)
    constant_types = {op.get_output_element_type(0) for op in model.get_ops() if op.get_type_name() == "Constant"}
    assert ov.Type.f16 in constant_types
    (cached,) = list(private_ir_cache.rglob(f"{tiny_model.stem}_fp16.xml"))
    assert runtime.ir_path(source, Precision.FP16) == cached
    first_write = cached.stat().st_mtime_ns
    runtime.read_model(source, Precision.FP16)
    assert cached.stat().st_mtime_ns == first_write
    fp32 = runtime.read_model(source, Precision.FP32)
    assert ov.Type.f16 not in {op.get_output_element_type(0) for op in fp32.get_ops()}


def test_the_model_hash_covers_the_weights(tiny_model: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.xml"
    copy.write_bytes(tiny_model.read_bytes())
    weights = bytearray(tiny_model.with_suffix(".bin").read_bytes())
    copy.with_suffix(".bin").write_bytes(weights)
    assert open_model_source(copy).sha256 == open_model_source(tiny_model).sha256
    weights[0] ^= 0xFF
    copy.with_suffix(".bin").write_bytes(weights)
    assert open_model_source(copy).sha256 != open_model_source(tiny_model).sha256


def test_batch_goes_on_the_batch_axis_of_every_input(runtime: Runtime, tiny_model: Path) -> None:
    model = runtime.read_model(open_model_source(tiny_model), Precision.FP32)
    runtime.reshape(model, 4, {})
    assert list(model.input(0).get_shape()) == [4, 8, 16, 16]


def test_shape_flag_fixes_dynamic_dims_and_batch_overrides_its_first(runtime: Runtime,
                                                                      spatially_dynamic_model: Path) -> None:
    model = runtime.read_model(open_model_source(spatially_dynamic_model), Precision.FP32)
    runtime.reshape(model, 2, {"image": [1, 3, 64, 48]})
    assert list(model.input(0).get_shape()) == [2, 3, 64, 48]


def test_dynamic_model_without_shape_names_its_inputs(runtime: Runtime, spatially_dynamic_model: Path) -> None:
    model = runtime.read_model(open_model_source(spatially_dynamic_model), Precision.FP32)
    with pytest.raises(ModelError, match=r"input image\[1,3,\?,\?\] has dynamic dimensions.*give them with shape, "
                       r"e\.g\. shape image\[") as dynamic:
        runtime.reshape(model, 1, {})
    assert "give them with --shape, e.g. --shape image[" in said(dynamic.value)  # as the CLI says it


def test_batch_the_model_cannot_take(runtime: Runtime, batch_one_only_model: Path) -> None:
    model = runtime.read_model(open_model_source(batch_one_only_model), Precision.FP32)
    runtime.reshape(model, 1, {})
    with pytest.raises(ModelError, match=r"cannot take input x\[4,8,4,4\].*sweep batch 1") as refused:
        runtime.reshape(model, 4, {})
    assert "sweep --batch 1" in said(refused.value)


def test_missing_and_garbage_models(runtime: Runtime, tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="does not exist"):
        open_model_source(tmp_path / "nope.xml")
    garbage = tmp_path / "garbage.xml"
    garbage.write_text("<not a model>")
    with pytest.raises(ModelError, match="is not a model OpenVINO can read"):
        runtime.read_model(open_model_source(garbage), Precision.FP32)


def test_absent_device_lists_what_is_present(runtime: Runtime) -> None:
    present = runtime.available_devices()
    assert "CPU" in present
    absent = next(d for d in ("GPU", "NPU", "TPU") if d not in present)
    with pytest.raises(DeviceError, match=rf"device {absent} is not present on this machine; present: .*CPU"):
        runtime.resolve_devices(("CPU", absent))


def test_inputs_are_filled_with_deterministic_data(runtime: Runtime, cpu: DeviceInfo, tiny_model: Path) -> None:
    compiled, _ = compile_tiny(runtime, cpu, tiny_model, Precision.FP32)
    first, second = compiled.create_infer_request(), compiled.create_infer_request()
    fill_inputs(first)
    fill_inputs(second)
    assert np.array_equal(first.get_input_tensor(0).data, second.get_input_tensor(0).data)
    assert np.std(first.get_input_tensor(0).data) > 0.5


def test_a_cache_folder_cut_short_is_not_taken_as_made(tmp_path: Path) -> None:
    """made_once: a make interrupted half way (Ctrl-C) leaves no folder, not even its .making one, and the next make
    starts clean and puts its folder in place whole."""
    from ov_tuner.model.cache import made_once

    folder = tmp_path / "llm" / "model-int4"

    def cut_short(making: Path) -> None:
        (making / "half.bin").write_bytes(b"0")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        made_once(folder, cut_short)
    assert list((tmp_path / "llm").iterdir()) == []
    assert made_once(folder, lambda making: (making / "whole.bin").write_bytes(b"01")) == folder
    assert [p.name for p in folder.iterdir()] == ["whole.bin"] and list((tmp_path / "llm").iterdir()) == [folder]
