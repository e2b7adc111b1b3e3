"""Any model in, real data in: ONNX, layouts and batch, multiple integer inputs, images, the zoo."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import onnx
import openvino as ov
import openvino.opset13 as ops
import pytest
from conftest import quick_spec
from factories import assert_one_line, ov_tuner
from onnx import TensorProto, helper, numpy_helper
from typer.testing import CliRunner

from ov_tuner.cli import app
from ov_tuner.devices.modelfile import open_model_source, set_layouts
from ov_tuner.devices.runtime import Runtime
from ov_tuner.errors import BadInputError, ModelError
from ov_tuner.model.architectures import ARCHITECTURES
from ov_tuner.model.inputs import InputData, add_image_preprocessing, load_images
from ov_tuner.model.zoo import build_zoo_model, model_stats
from ov_tuner.schema import Int8Options, Precision, Status
from ov_tuner.store.results import load_results
from ov_tuner.workloads.sweep import run_sweep

runner = CliRunner()


@pytest.fixture(scope="module")
def onnx_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A static batch-1 ONNX export, as many are: conv + relu on [1, 3, 32, 32], no layout information."""
    weights = numpy_helper.from_array(np.random.default_rng(0).standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["y"])],
        "static_conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 32, 32])], [weights])
    path = tmp_path_factory.mktemp("onnx") / "static_conv.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def test_onnx_is_converted_once_and_swept_at_batch_4(onnx_model: Path, tmp_path: Path,
                                                     private_ir_cache: Path) -> None:
    out = tmp_path / "r.db"
    summary = run_sweep(quick_spec(onnx_model, out, streams=(1,), nireq=(1,), batches=(1, 4),
                                   precisions=(Precision.FP32, Precision.FP16)))
    assert (summary.measured, summary.failed) == (4, 0)
    (converted,) = private_ir_cache.rglob("static_conv.xml")
    assert len(list(private_ir_cache.rglob("static_conv_fp16.xml"))) == 1
    stamp = converted.stat().st_mtime_ns
    Runtime().ir_path(open_model_source(onnx_model), Precision.FP32)
    assert converted.stat().st_mtime_ns == stamp  # cached, keyed by the ONNX file's hash
    batch4 = [p for p in load_results(out).points if p.config.batch == 4]
    assert all(p.measurement is not None and p.measurement.frames == 4 * p.measurement.requests for p in batch4)


def test_garbage_with_a_model_suffix_is_refused(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.onnx"
    bogus.write_bytes(b"not a model at all")
    with pytest.raises(ModelError, match="is not a model OpenVINO can read or convert"):
        Runtime().read_model(open_model_source(bogus), Precision.FP32)


@pytest.fixture(scope="module")
def channels_first_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An input [8, 1] whose batch is its second axis: only a layout can say so."""
    x = ops.parameter([8, 1], ov.Type.f32, name="features")
    path = tmp_path_factory.mktemp("layout") / "features.xml"
    ov.save_model(ov.Model([ops.relu(x)], [x], "features"), path)
    return path


def test_layout_flag_puts_the_batch_where_it_belongs(channels_first_model: Path) -> None:
    runtime = Runtime()
    model = runtime.read_model(open_model_source(channels_first_model), Precision.FP32)
    set_layouts(model, {"features": "CN"})
    runtime.reshape(model, 4, {})
    assert list(model.input(0).get_shape()) == [8, 4]


def test_a_layout_without_batch_says_how_to_fix_it(channels_first_model: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["sweep", str(channels_first_model), "--layout", "C?", "--batch", "2",
                                 "--out", str(tmp_path / "r.db"), "--no-baselines"])
    assert result.exit_code == 2
    assert "has layout [C,?] with no batch dimension (N)" in result.stderr and "--layout" in result.stderr
    wrong_rank = runner.invoke(app, ["sweep", str(channels_first_model), "--layout", "NCHW",
                                     "--out", str(tmp_path / "r.db")])
    assert wrong_rank.exit_code == 2 and "has 4 dimensions but input features has 2" in wrong_rank.stderr


def test_multi_input_int64_model_swept_end_to_end(models_dir: Path, tmp_path: Path) -> None:
    model, _ = build_zoo_model("bert_encoder", models_dir)
    out = tmp_path / "r.db"
    result = runner.invoke(app, ["sweep", str(model), "--batch", "1,2", "--streams", "1", "--nireq", "1",
                                 "--seconds", "0.2", "--window", "0.1", "--precision", "fp32", "--no-baselines",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.stderr
    points = load_results(out).points
    assert [p.config.batch for p in points] == [1, 2] and all(p.status is Status.OK for p in points)


@pytest.fixture(scope="module")
def image_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(0)
    for i, (suffix, size) in enumerate([(".png", (40, 30)), (".jpg", (64, 48)), (".bmp", (20, 20))]):
        cv2.imwrite(str(folder / f"img{i}{suffix}"), rng.integers(0, 256, (*size, 3), dtype=np.uint8))
    (folder / "notes.txt").write_text("not an image, and not read")
    return folder


@pytest.fixture(scope="module")
def rgb_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    x = ops.parameter([-1, 3, 24, 32], ov.Type.f32, name="image")
    x.set_layout(ov.Layout("NCHW"))
    y = ops.convolution(x, np.ones((2, 3, 3, 3), np.float32), [1, 1], [1, 1], [1, 1], [1, 1])
    path = tmp_path_factory.mktemp("rgb") / "rgb.xml"
    ov.save_model(ov.Model([y], [x], "rgb"), path)
    return path


def test_images_are_resized_and_cycled_through_the_preprocessing(rgb_model: Path, image_folder: Path) -> None:
    images = load_images(image_folder)
    assert len(images) == 3
    runtime = Runtime()
    model = add_image_preprocessing(runtime.read_model(open_model_source(rgb_model), Precision.FP32))
    runtime.reshape(model, 2, {})
    assert list(model.input(0).get_shape()) == [2, 24, 32, 3] and model.input(0).get_element_type() == ov.Type.u8
    compiled = ov.Core().compile_model(model, "CPU")
    first, second = compiled.create_infer_request(), compiled.create_infer_request()
    data = InputData(images)
    data.fill(first, 0)
    data.fill(second, 1)
    expected = [cv2.resize(images[i], (32, 24)) for i in (0, 1, 2, 0)]  # request 1 wraps round to image 0
    assert np.array_equal(first.get_input_tensor(0).data, np.stack(expected[:2]))
    assert np.array_equal(second.get_input_tensor(0).data, np.stack(expected[2:]))
    first.infer()  # BGR u8 NHWC in, converted inside the model
    assert np.isfinite(first.get_output_tensor(0).data).all()


def test_sweep_with_images(rgb_model: Path, image_folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    for mode in ("inference-only", "full"):
        result = runner.invoke(app, ["sweep", str(rgb_model), "--images", str(image_folder), "--input-mode", mode,
                                     "--streams", "1", "--nireq", "2", "--seconds", "0.2", "--window", "0.1",
                                     "--precision", "fp32", "--no-baselines", "--out", str(out)])
        assert result.exit_code == 0, result.stderr
    assert len(load_results(out).points) == 2


@pytest.fixture(scope="module")
def dynamic_spatial_onnx(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A classifier exported as YOLO and DBNet exports usually are: input [?,3,?,?], batch, height and width dynamic,
    no layout information; convolution, pooling and a dense layer to 10 class probabilities."""
    rng = np.random.default_rng(3)
    weights = [numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)
               for name, shape in (("w", (8, 3, 3, 3)), ("fc", (10, 8)))]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["p"]), helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node("Gemm", ["f", "fc"], ["g"], transB=1), helper.make_node("Softmax", ["g"], ["y"])]
    graph = helper.make_graph(nodes, "dynamic_spatial", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                                       ["N", 3, "H", "W"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])], weights)
    path = tmp_path_factory.mktemp("dynamic_onnx") / "dynamic_spatial.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def test_a_dynamic_spatial_onnx_takes_shape_and_images_at_fp32_and_int8(dynamic_spatial_onnx: Path,
                                                                        image_folder: Path, tmp_path: Path) -> None:
    """--shape is written in the model's own layout (NCHW here) and --images feeds the same input: the shape must
    reach the model before the preprocessing turns its input into NHWC (the two once disagreed)."""
    out = tmp_path / "dynamic.db"
    run_sweep(quick_spec(dynamic_spatial_onnx, out, precisions=(Precision.FP32, Precision.INT8), streams=(1,),
                         nireq=(1,), batches=(1, 2), shapes={"": [1, 3, 40, 48]}, images=image_folder,
                         accuracy_inputs=8, int8=Int8Options(subset_size=8)))
    stored = load_results(out)
    assert {(p.config.precision, p.config.batch) for p in stored.points if p.ok} == {
        (precision, batch) for precision in (Precision.FP32, Precision.INT8) for batch in (1, 2)}
    rows = {a.precision: a for a in stored.accuracies if a.batch == 1}
    assert rows[Precision.FP32].top1 == 1.0  # the reference against itself
    held_apart = len(load_images(image_folder)) // 2  # every other image calibrates, the rest judge
    assert rows[Precision.INT8].error is None and rows[Precision.INT8].top1 is not None
    assert rows[Precision.INT8].inputs == held_apart
    assert stored.quantization is not None and stored.quantization.images


def test_a_shape_the_model_cannot_take_is_named_not_blamed_on_the_batch(dynamic_spatial_onnx: Path,
                                                                         image_folder: Path, tmp_path: Path) -> None:
    """NHWC written for an NCHW input, with or without images: the shape that failed and the input as it is."""
    args = ["sweep", str(dynamic_spatial_onnx), "--shape", "[1,40,48,3]", "--precision", "fp32", "--streams", "1",
            "--nireq", "1", "--seconds", "0.2", "--no-baselines", "--out", str(tmp_path / "r.db")]
    for extra in ([], ["--images", str(image_folder)]):
        line = assert_one_line(ov_tuner(*args, *extra), "cannot take input x[1,40,48,3]",
                               "check --shape against the model's own inputs, x[?,3,?,?]")
        assert "batch" not in line.split(";")[-1]
    assert not (tmp_path / "r.db").exists()


def test_an_unreadable_image_is_named(image_folder: Path, tmp_path: Path) -> None:
    broken = tmp_path / "images"
    broken.mkdir()
    (broken / "fine.png").write_bytes((image_folder / "img0.png").read_bytes())
    (broken / "broken.jpg").write_bytes(b"\xff\xd8 truncated")
    with pytest.raises(BadInputError, match=r"cannot read .*broken\.jpg"):
        load_images(broken)
    with pytest.raises(BadInputError, match=r"holds no \.png"):
        load_images(tmp_path)


@pytest.mark.parametrize("name", list(ARCHITECTURES))
def test_every_zoo_model_builds_and_runs(name: str, tmp_path: Path) -> None:
    path, stats = build_zoo_model(name, tmp_path)
    runtime = Runtime()
    model = runtime.read_model(open_model_source(path), Precision.FP32)
    runtime.reshape(model, 1, {})
    request = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"}).create_infer_request()
    for port in request.model_inputs:
        tensor = request.get_tensor(port)
        tensor.data[...] = np.ones(tensor.shape, dtype=tensor.data.dtype)
    request.infer()
    assert all(np.isfinite(t.data).all() for t in request.output_tensors)
    assert stats == model_stats(model) and stats.parameters > 0 and stats.flops > 0


def test_zoo_figures_match_the_published_architectures(tmp_path: Path) -> None:
    expected = {"mobilenet_v2": (3.4e6, 0.6e9), "resnet50": (25.5e6, 8.2e9), "ssdlite_mobilenet_v2": (4.3e6, None),
                "bert_encoder": (11.1e6, None)}  # parameters and FLOPs (2 per multiply-add) from the papers
    for name, (params, flops) in expected.items():
        stats = model_stats(ARCHITECTURES[name]())
        assert stats.parameters == pytest.approx(params, rel=0.05)
        if flops:
            assert stats.flops == pytest.approx(flops, rel=0.05)


def test_zoo_commands(tmp_path: Path) -> None:
    listed = runner.invoke(app, ["zoo", "list"])
    assert listed.exit_code == 0 and all(name in listed.stdout for name in ARCHITECTURES)
    built = runner.invoke(app, ["zoo", "build", "tiny_conv", "--out-dir", str(tmp_path)])
    assert built.exit_code == 0 and (tmp_path / "tiny_conv.xml").is_file()
    unknown = runner.invoke(app, ["zoo", "build", "yolo", "--out-dir", str(tmp_path)])
    assert unknown.exit_code == 2 and "no zoo model 'yolo'; choose from" in unknown.stderr
