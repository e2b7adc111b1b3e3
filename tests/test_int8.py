"""INT8 with NNCF, real runtime and real NNCF on tiny models: `quantize`, the sweep's int8, its cache, accuracy on
held-apart inputs, accuracy control, a model that came quantized, and NNCF missing."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import openvino as ov
import openvino.opset13 as ops
import pytest
from conftest import quick_spec
from factories import assert_one_line, figures_missing, ov_tuner, rewind
from rich.console import Console

from ov_tuner.analyse.accuracy import DEFAULT_LIMIT, NO_LIMIT
from ov_tuner.analyse.answer import answer_if_any, answer_of
from ov_tuner.analyse.confirmed import precision_ratios
from ov_tuner.analyse.findings import findings_of
from ov_tuner.analyse.recommend import results_answer
from ov_tuner.devices.modelfile import open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.errors import ModelError, QuantizationError
from ov_tuner.model.inputs import add_image_preprocessing, as_model_input, load_images
from ov_tuner.model.quantized import quantized_ops
from ov_tuner.present.formats import deploy_snippets
from ov_tuner.present.terminal import print_sections
from ov_tuner.quantize import nncf_backend
from ov_tuner.quantize.data import calibration_sets
from ov_tuner.quantize.ir import int8_ir
from ov_tuner.quantize.make import quantize_model
from ov_tuner.schema import ConfirmRule, Int8Options, Precision
from ov_tuner.stats.headtohead import HeadToHead
from ov_tuner.store.results import ResultStore, load_results
from ov_tuner.workloads.sweep import run_sweep
from ov_tuner.workloads.sweep.notices import Quantizing
from ov_tuner.workloads.sweep.present.documents import show_document
from ov_tuner.workloads.sweep.present.sections.answer import answer_facts

FEW = Int8Options(subset_size=8)


@pytest.fixture(scope="module")
def classifier(models_dir: Path) -> Path:
    """A small image classifier with seeded weights: two convolutions and a dense layer to 100 softmax scores (no
    pooling to average quantization noise away: default INT8 flips some of its top-1 classes)."""
    rng = np.random.default_rng(7)
    x = ops.parameter([-1, 3, 32, 32], ov.Type.f32, name="image")
    y = ops.relu(ops.convolution(x, ops.constant(rng.standard_normal((16, 3, 3, 3)).astype(np.float32) * 0.3),
                                 [2, 2], [1, 1], [1, 1], [1, 1]))
    y = ops.relu(ops.convolution(y, ops.constant(rng.standard_normal((32, 16, 3, 3)).astype(np.float32) * 0.1),
                                 [2, 2], [1, 1], [1, 1], [1, 1]))
    y = ops.reshape(y, ops.constant(np.array([-1, 32 * 8 * 8])), special_zero=False)
    y = ops.softmax(ops.matmul(y, ops.constant(rng.standard_normal((2048, 100)).astype(np.float32)), False, False), 1)
    y.output(0).set_names({"probs"})
    path = models_dir / "classifier.xml"
    ov.save_model(ov.Model([y], [x], "classifier"), path, compress_to_fp16=False)
    return path


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Seven real photographs from scikit-image's wheel, as files in a folder."""
    import skimage

    folder = tmp_path_factory.mktemp("photos")
    data = Path(skimage.__file__).parent / "data"
    for name in ("astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "motorcycle_left.png", "ihc.png",
                 "color.png"):
        image = cv2.imread(str(data / name), cv2.IMREAD_COLOR)
        assert image is not None
        cv2.imwrite(str(folder / f"{Path(name).stem}.png"), cv2.resize(image, (64, 64)))
    return folder


def test_quantize_writes_an_int8_ir_that_runs(classifier: Path, tmp_path: Path) -> None:
    out = tmp_path / "classifier_int8.xml"
    done = ov_tuner("quantize", str(classifier), "-o", str(out), "--subset-size", "8")
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}" in done.stdout and "calibrated on 8 generated inputs" in done.stdout
    assert "speed figure" in done.stdout  # generated calibration says what it is good for
    model = ov.Core().read_model(out)
    assert any(op.get_type_name() == "FakeQuantize" for op in model.get_ops())
    assert quantized_ops(model) > 0 and quantized_ops(ov.Core().read_model(classifier)) == 0
    compiled = ov.Core().compile_model(model, "CPU")
    scores = compiled(np.ones((1, 3, 32, 32), np.float32))[0]
    assert scores.shape == (1, 100) and np.isclose(scores.sum(), 1, atol=0.05)


def test_a_quantized_model_is_never_quantized_twice(classifier: Path, tmp_path: Path) -> None:
    made = quantize_model(Runtime(), open_model_source(classifier), FEW)
    given = tmp_path / "given_int8.xml"
    ov.save_model(ov.Core().read_model(made.path), given, compress_to_fp16=False)

    done = ov_tuner("quantize", str(given), "-o", str(tmp_path / "again.xml"))
    assert_one_line(done, "already quantized", "never quantizes twice")
    assert not (tmp_path / "again.xml").exists()

    out = tmp_path / "given.db"
    run_sweep(quick_spec(given, out, precisions=(Precision.FP32, Precision.INT8), streams=(1,), nireq=(1,)))
    stored = load_results(out)
    assert stored.quantization is not None and stored.quantization.given
    int8 = [p for p in stored.points if p.config.precision is Precision.INT8]
    assert int8 and all(p.ok and p.compile is not None and p.compile.ir_path == str(given) for p in int8)


def test_a_sweep_measures_int8_beside_fp32_head_to_head(classifier: Path, tmp_path: Path) -> None:
    notes: list[object] = []

    class Recorder:
        def __getattr__(self, name: str) -> object:
            return notes.append if name == "note" else (lambda *args: None)

    out = tmp_path / "int8.db"
    spec = quick_spec(classifier, out, precisions=(Precision.FP32, Precision.INT8), streams=(1,), nireq=(1, 2),
                      confirm=ConfirmRule(passes=2, window_s=0.05), accuracy_inputs=8, int8=FEW)
    run_sweep(spec, Recorder())  # type: ignore[arg-type]
    stored = load_results(out)
    assert {p.config.precision for p in stored.points if p.ok} == {Precision.FP32, Precision.INT8}
    int8 = next(a for a in stored.accuracies if a.precision is Precision.INT8)
    assert int8.error is None and int8.top1 is not None and int8.inputs == 8
    head = HeadToHead.of(stored.confirmations[-1])
    assert head is not None
    pairs = {(r.numerator.contender.config.precision, r.denominator.contender.config.precision)
             for r in precision_ratios(head)}
    assert pairs & {(Precision.INT8, Precision.FP32), (Precision.FP32, Precision.INT8)}
    assert stored.quantization is not None and stored.quantization.speed_only
    console = Console(width=1000, record=True, color_system=None, force_terminal=False)
    print_sections(console, show_document(stored, answer_if_any(stored), findings_of(stored)))
    text = console.export_text()
    int8_line = next(ln for ln in text.splitlines() if "CPU int8 batch 1" in ln and "outputs:" in ln)
    assert "FPS of fp32, head to head" in int8_line and "a speed figure, not an accuracy figure" in int8_line
    # NNCF ran (and said so once) unless an earlier test's quantize_model already cached this IR.
    assert sum(isinstance(n, Quantizing) for n in notes) == (0 if stored.quantization.cached else 1)

    # The answer names the trade-off; the figures compare int8 with fp32; the deploy forms name the INT8 IR and
    # the `ov-tuner quantize` line, which writes it.
    answer = ov_tuner("recommend", str(out))
    assert any(ln.startswith("int8 ") and "FPS of fp32" in ln and "top-1 agreement" in ln
               for ln in answer.stdout.splitlines()), answer.stdout
    # Calibrated on generated inputs: by default never the answer, whatever this host's INT8 kernels make of it;
    # where it was the fastest, the answer says so and how to get it (a VNNI/AMX host), else nothing is held back.
    rec, free = results_answer(stored), results_answer(stored, NO_LIMIT)
    for limit in ((), ("--max-accuracy-loss", "none")):  # the JSON carries every figure the terminal's rows say
        payload = json.loads(ov_tuner("recommend", str(out), "--json", *limit).stdout)
        rows = list(answer_facts(answer_of(stored, NO_LIMIT if limit else DEFAULT_LIMIT)).rows)
        assert [label for label, _ in rows] == [k for k in payload["says"] if k != "verdict"]
        assert figures_missing(rows, payload) == [] and payload["int8"]["accuracy"]["inputs"] == 8
        assert any(label == "int8" for label, _ in rows)
    assert rec.winner.config.precision is not Precision.INT8
    if free.winner.config.precision is Precision.INT8:
        assert rec.held_back is not None and rec.held_back.winner.config == free.winner.config
        assert any(ln.startswith("held back") for ln in answer.stdout.splitlines()), answer.stdout
    else:
        assert rec.held_back is None
    assert ov_tuner("plot", str(out), "--out-dir", str(tmp_path / "plots")).returncode == 0
    assert (tmp_path / "plots" / "precision_int8_CPU_b1.png").exists()
    point = next(p for p in stored.points if p.ok and p.config.precision is Precision.INT8 and p.config.explicit)
    snippets = deploy_snippets(point, str(classifier), stored.quantization)
    int8_ir = classifier.with_name("classifier_int8.xml")
    assert snippets.model.path == str(int8_ir) and snippets.model.make == stored.quantization.command
    assert str(int8_ir) in snippets.python and str(int8_ir) in snippets.benchmark_app
    made = ov_tuner(*shlex.split(snippets.model.make)[1:])
    assert made.returncode == 0, made.stderr
    assert quantized_ops(ov.Core().read_model(int8_ir)) == stored.quantization.quantized_ops

    # The same sweep again, into a new file: the cached IR, no second quantization.
    notes.clear()
    again = tmp_path / "again.db"
    run_sweep(quick_spec(classifier, again, precisions=(Precision.INT8,), streams=(1,), nireq=(1,),
                         accuracy_inputs=8, int8=FEW), Recorder())  # type: ignore[arg-type]
    second = load_results(again).quantization
    assert second is not None and second.cached and second.ir == stored.quantization.ir
    assert not any(isinstance(n, Quantizing) for n in notes)


def test_images_split_into_disjoint_calibration_and_accuracy_sets(classifier: Path, photos: Path,
                                                                  tmp_path: Path) -> None:
    images = load_images(photos)
    model = ov.Core().read_model(classifier)
    sets = calibration_sets(model, images, {}, 300, 32)
    assert (len(sets.calibration), len(sets.held_apart)) == (4, 3) and sets.images
    calibrating = {item["image"].tobytes() for item in sets.calibration}
    held = {item["image"].tobytes() for item in sets.held_apart}
    assert len(calibrating) == 4 and len(held) == 3 and not calibrating & held
    assert len(calibration_sets(model, images, {}, 2, 32).calibration) == 2  # --subset-size holds with images too

    out = tmp_path / "photos.db"
    run_sweep(quick_spec(classifier, out, precisions=(Precision.FP32, Precision.INT8), streams=(1,), nireq=(1,),
                         accuracy_inputs=8, images=photos))
    stored = load_results(out)
    assert stored.quantization is not None and (stored.quantization.calibration, stored.quantization.held_apart) \
        == (4, 3) and not stored.quantization.speed_only
    assert {a.inputs for a in stored.accuracies} == {3}  # accuracy only on the images NNCF did not see


def test_a_results_files_int8_record_keeps_its_images_folder_and_makes_a_lost_ir_again_from_it(
        classifier: Path, photos: Path, tmp_path: Path) -> None:
    source = open_model_source(classifier)
    made = quantize_model(Runtime(), source, FEW, images=load_images(photos), images_dir=photos)
    out = tmp_path / "r.db"
    with ResultStore(out) as store:
        store.record_quantization(made.record)
    with ResultStore(out, create=False) as store:
        recorded = store.quantization()
    assert recorded is not None and recorded.images_dir == str(photos)

    # A file written before the folder was kept as data: read from its quantize line, the file left as it was.
    with sqlite3.connect(out) as db:
        old = json.loads(db.execute("SELECT value FROM meta WHERE key='quantization'").fetchone()[0])
        del old["images_dir"]
        db.execute("UPDATE meta SET value = ? WHERE key='quantization'", (json.dumps(old),))
        rewind(db, 7)
    with ResultStore(out, create=False) as store:
        assert store.quantization() == recorded

    # The cache lost the IR: made again on the recorded folder's images, the same IR.
    for suffix in (".xml", ".bin"):
        Path(recorded.ir).with_suffix(suffix).unlink()
    told: list[bool] = []
    again = int8_ir(Runtime(), source, recorded=recorded, starting=told.append)
    assert again.path == Path(recorded.ir) and again.path.exists() and told == [True]

    # The folder now holds other images: another IR, refused before NNCF runs.
    fewer = tmp_path / "fewer"
    shutil.copytree(photos, fewer)
    min(fewer.iterdir()).unlink()
    Path(recorded.ir).unlink()
    told.clear()
    with pytest.raises(ModelError, match="gives another one"):
        int8_ir(Runtime(), source, recorded=replace(recorded, images_dir=str(fewer)), starting=told.append)
    assert told == []


def test_calibration_inputs_are_what_the_sweep_feeds(classifier: Path, photos: Path) -> None:
    """The host-side preprocessing of calibration images gives the model exactly what the sweep's in-model
    preprocessing gives it: the same outputs, to rounding."""
    core = ov.Core()
    images = load_images(photos)[:2]
    plain = core.read_model(classifier)
    plain.reshape([2, 3, 32, 32])
    with_steps = add_image_preprocessing(core.read_model(classifier))
    with_steps.reshape([2, 32, 32, 3])
    hosted = core.compile_model(plain, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(
        as_model_input(images, plain.inputs[0]))[0]
    resized = np.stack([cv2.resize(image, (32, 32)) for image in images])
    inside = core.compile_model(with_steps, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(resized)[0]
    assert np.allclose(hosted, inside, atol=1e-5)


def test_accuracy_control_keeps_agreement_within_the_bound(classifier: Path, tmp_path: Path) -> None:
    """--int8-max-drop 1: the INT8 IR's top-1 agreement with FP32 on the held-apart inputs, as the sweep measures
    it, is at least 99%; to get there NNCF can only keep layers in float, never quantize more than by default."""
    out = tmp_path / "controlled.db"
    options = Int8Options(subset_size=16, max_drop=1)
    run_sweep(quick_spec(classifier, out, precisions=(Precision.FP32, Precision.INT8), streams=(1,), nireq=(1,),
                         accuracy_inputs=24, int8=options))
    stored = load_results(out)
    int8 = next(a for a in stored.accuracies if a.precision is Precision.INT8)
    assert int8.top1 is not None and int8.top1 >= 0.99 and int8.inputs == 24
    controlled = stored.quantization
    assert controlled is not None and controlled.options.max_drop == 1
    assert "--int8-max-drop 1" in controlled.command
    default = quantize_model(Runtime(), open_model_source(classifier), Int8Options(subset_size=16), held_apart=24)
    assert 0 < controlled.quantized_ops <= default.record.quantized_ops

    # The same file resumed with another INT8 IR would mix two IRs' points under int8: refused in one line, before
    # NNCF spends its minutes.
    mixed = ov_tuner("sweep", str(classifier), "--precision", "fp32,int8", "--streams", "1", "--nireq", "1",
                     "--seconds", "0.1", "--no-baselines", "--no-confirm", "--accuracy-inputs", "24", "--out", str(out))
    assert_one_line(mixed, "holds int8 points of another INT8 IR", "--int8-max-drop 1", "new --out")  # before NNCF
    assert len(load_results(out).points) == len(stored.points)


def test_without_nncf_int8_is_one_line_saying_how_to_install_it(classifier: Path, tmp_path: Path) -> None:
    hidden = tmp_path / "no_nncf"
    (hidden / "nncf").mkdir(parents=True)
    (hidden / "nncf" / "__init__.py").write_text("raise ImportError('hidden by the test')\n")
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(hidden), os.environ.get("PYTHONPATH")) if p)}
    install = 'pip install "ov-tuner[int8]"'
    assert_one_line(ov_tuner("quantize", str(classifier), "-o", str(tmp_path / "q.xml"), env=env), install)
    out = tmp_path / "none.db"
    assert_one_line(ov_tuner("sweep", str(classifier), "--precision", "fp32,int8", "--out", str(out), env=env),
                    install)
    assert not out.exists()  # nothing measured, nothing written
    # Everything else works without it.
    done = ov_tuner("sweep", str(classifier), "--precision", "fp32", "--streams", "1", "--nireq", "1", "--seconds",
                    "0.1", "--no-baselines", "--no-confirm", "--out", str(out), env=env)
    assert done.returncode == 0, done.stderr


def test_a_reference_that_cannot_compile_is_one_line_and_the_sweep_goes_on(tiny_model: Path, tmp_path: Path) -> None:
    """A batch far too large for memory: its FP32 reference fails to compile. One line naming the batch, exit 0,
    the other batch's accuracy stored."""
    huge = 2 ** 24
    out = tmp_path / "huge.db"
    done = ov_tuner("sweep", str(tiny_model), "--precision", "fp32", "--batch", f"1,{huge}", "--streams", "1",
                    "--nireq", "1", "--seconds", "0.1", "--no-baselines", "--no-confirm", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    said = [ln for ln in done.stderr.splitlines() if f"no FP32 reference at batch {huge}" in ln]
    assert len(said) == 1
    accuracies = {a.batch: a for a in load_results(out).accuracies}
    assert accuracies[1].error is None and accuracies[1].cosine == 1.0
    assert accuracies[huge].error is not None and not accuracies[huge].outputs


def test_nncf_failing_on_a_model_is_one_line(classifier: Path) -> None:
    """Whatever NNCF raises on a model it trips on (here: calibration inputs for an input the model lacks) comes out
    as one QuantizationError line naming NNCF, never its traceback."""
    model = ov.Core().read_model(classifier)
    with pytest.raises(QuantizationError, match=r"^NNCF [\d.]+ could not quantize the model \(") as caught:
        nncf_backend.quantize(model, [{"no_such_input": np.zeros((1, 3, 32, 32), np.float32)}], FEW, False)
    assert "\n" not in str(caught.value)


def test_quantize_never_writes_over_the_model_it_was_given(classifier: Path, tmp_path: Path) -> None:
    model = tmp_path / "net.xml"
    for suffix in (".xml", ".bin"):
        model.with_suffix(suffix).write_bytes(classifier.with_suffix(suffix).read_bytes())
    before = {suffix: model.with_suffix(suffix).read_bytes() for suffix in (".xml", ".bin")}
    for target in (model, tmp_path / "." / "net.xml"):
        assert_one_line(ov_tuner("quantize", str(model), "-o", str(target), "--subset-size", "8"),
                        "would replace", "which you gave as input")
    assert_one_line(ov_tuner("sweep", str(model), "--out", str(model.with_suffix(".bin"))), "would replace")
    assert {suffix: model.with_suffix(suffix).read_bytes() for suffix in (".xml", ".bin")} == before


def test_a_cache_that_cannot_be_a_folder_is_one_line_before_nncf_runs(classifier: Path, tmp_path: Path) -> None:
    in_the_way = tmp_path / "cache"
    in_the_way.write_text("a file where the cache folder would be")
    done = ov_tuner("quantize", str(classifier), "-o", str(tmp_path / "q.xml"), "--subset-size", "8",
                    env={"OV_TUNER_CACHE": str(in_the_way)})
    assert_one_line(done, f"cannot keep converted models under {in_the_way}", "OV_TUNER_CACHE")
    assert "quantizing" not in done.stderr + done.stdout and not (tmp_path / "q.xml").exists()


def test_images_for_a_model_without_three_channels_name_the_channels(photos: Path, tmp_path: Path) -> None:
    """Calibration on photos for a 1-channel input is refused before NNCF runs, as the sweep refuses it."""
    x = ops.parameter([-1, 1, 32, 32], ov.Type.f32, name="gray")
    y = ops.convolution(x, ops.constant(np.ones((4, 1, 3, 3), np.float32)), [1, 1], [1, 1], [1, 1], [1, 1])
    gray = tmp_path / "gray.xml"
    ov.save_model(ov.Model([y], [x], "gray"), gray, compress_to_fp16=False)
    expected = ("--images works with 3-channel image inputs", "gray has 1 channels")
    assert_one_line(ov_tuner("quantize", str(gray), "-o", str(tmp_path / "q.xml"), "--images", str(photos)),
                    *expected)
    assert_one_line(ov_tuner("sweep", str(gray), "--precision", "fp32,int8", "--images", str(photos), "--out",
                             str(tmp_path / "r.db")), *expected)
