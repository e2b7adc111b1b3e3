"""Every `recommend --format` form is run by its own client where the client runs here: the benchmark_app form (its
-load_config file and line) by benchmark_app and the Python form by Python, each compiling what the sweep measured
(the read-back properties and the input shape). Every form names the model the user gave (or the command that makes
the IR it loads) and the file it is written to. OVMS and DL Streamer cannot run here: the config is checked against
OVMS's own schema, the pipeline against the elements' documented properties."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import jsonschema
import openvino as ov
import pytest
from conftest import quick_spec
from factories import assert_one_line, make_point, ov_tuner
from typer.testing import CliRunner

from ov_tuner.analyse.inputs import measured_inputs
from ov_tuner.cli import app
from ov_tuner.deployable import SWEEP_WRITER
from ov_tuner.devices.decisions import type_name
from ov_tuner.present.formats import deploy_model, deploy_snippets
from ov_tuner.quantize.paths import int8_ir_path
from ov_tuner.schema import Environment, Int8Options, Mode, PointResult, Precision, Quantization
from ov_tuner.store.results import ResultStore, load_results
from ov_tuner.workloads.sweep import run_sweep
from ov_tuner.workloads.sweep.present.deploy_forms import dlstreamer_pipeline, ovms_config

OVMS_SCHEMA = json.loads((Path(__file__).parent / "data" / "ovms_config_schema.json").read_text())
# The properties gvainference, gvadetect and gvaclassify share (GvaBaseInference in DL Streamer's
# src/monolithic/gst/inference_elements/base/gva_base_inference.cpp and docs/source/elements/*.md, commit 94fe7fe).
DLSTREAMER_PROPERTIES = {"model", "model-proc", "device", "nireq", "batch-size", "ie-config", "pre-process-backend",
                         "pre-process-config", "inference-interval", "inference-region", "scheduling-policy",
                         "model-instance-id", "object-class", "labels", "labels-file", "reshape", "reshape-width",
                         "reshape-height", "scale-method", "custom-preproc-lib", "custom-postproc-lib",
                         "ov-extension-lib", "share-va-display-ctx", "no-block", "qos", "name"}
BIN = Path(sys.executable).parent  # benchmark_app ships in the openvino wheel, beside this Python
# The Python form, run, then what its compiled model reads back, as the sweep read it back (ov_tuner.devices.readback).
PYTHON_READ_BACK = """
import json
from ov_tuner.devices.readback import read_back
print(json.dumps({**read_back(compiled), "NUM_STREAMS": str(compiled.get_property("NUM_STREAMS")),
                  "INFERENCE_PRECISION_HINT": compiled.get_property("INFERENCE_PRECISION_HINT").get_type_name(),
                  "shape": [list(i.get_shape()) for i in compiled.inputs], "requests": len(queue)}))
"""


def measured(point: PointResult) -> dict[str, str]:
    """What the sweep's compile of `point` read back: the properties that shape a run, its streams and precision."""
    assert point.compile is not None
    return {**point.compile.read_back, "NUM_STREAMS": str(point.compile.num_streams),
            "INFERENCE_PRECISION_HINT": point.compile.inference_precision}


def _value(text: str) -> str:
    """A property as benchmark_app prints it ('True', "<Type: 'float32'>", 'SchedulingCoreType.ANY_CORE'), as a
    config writes it ('YES', 'f32', 'ANY_CORE')."""
    if text in ("True", "False"):
        return "YES" if text == "True" else "NO"
    if text.startswith("<Type:"):
        return type_name(text)
    enum = re.fullmatch(r"[A-Za-z]\w*\.([A-Z][A-Z_]*)", text)
    return enum.group(1) if enum else text


def run_benchmark_app(script: str, cwd: Path) -> tuple[dict[str, str], list[str]]:
    """Run a printed benchmark_app form for a few iterations; what the compiled model reports (step 8) and the
    shape of each input it compiled (step 6)."""
    script = script.rstrip("\n") + " -niter 4\n"  # a short run: the same compile, 4 inferences
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-euc", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    steps = re.split(r"^\[Step \d+/\d+\]", done.stdout, flags=re.M)
    inputs = steps[6].split("Model inputs:")[1].split("Model outputs:")[0]
    shapes = re.findall(r"/ (\[[\d,?]*\])\s*$", inputs, flags=re.M)
    properties = dict(re.findall(r"^\[ INFO \]   (\w+): (.*)$", steps[8], flags=re.M))
    return {k: _value(v) for k, v in properties.items()}, shapes


def run_python(code: str, cwd: Path) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", code + PYTHON_READ_BACK], cwd=cwd, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    found: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return found


def recommend_form(db: Path, fmt: str, target: Path, *more: str) -> tuple[str, list[str]]:
    """`recommend --format FMT -o TARGET`: the file it wrote and the steps it printed."""
    shown = CliRunner().invoke(app, ["recommend", str(db), "--format", fmt, "-o", str(target), *more])
    assert shown.exit_code == 0, shown.output
    return target.read_text(), shown.stdout.splitlines()


def test_the_ovms_config_follows_the_ovms_schema_and_carries_what_ran() -> None:
    point = make_point(2, 4, 100, batch=2)
    form = ovms_config(point, "/work/models/net.xml")
    config = json.loads(form.text)
    jsonschema.validate(config, OVMS_SCHEMA)
    (entry,) = config["model_config_list"]
    assert entry["config"]["nireq"] == 4 and entry["config"]["batch_size"] == 2
    assert entry["config"]["target_device"] == "CPU"
    assert entry["config"]["plugin_config"] == point.deploy_properties()
    assert entry["config"]["plugin_config"]["NUM_STREAMS"] == "2"
    assert any("/models/net/1/" in step and "/work/models/net.bin" in step for step in form.steps)
    assert form.steps[-1].startswith("ovms --config_path config.json")


def test_the_ovms_schema_catches_a_wrong_config() -> None:
    """The schema test data is strict enough to fail: a string nireq is refused, as OVMS refuses it."""
    config = json.loads(ovms_config(make_point(1, 1, 50), "/m/net.xml").text)
    config["model_config_list"][0]["config"]["nireq"] = "4"
    try:
        jsonschema.validate(config, OVMS_SCHEMA)
    except jsonschema.ValidationError:
        return
    raise AssertionError("a string nireq passed the OVMS schema")


def test_the_dlstreamer_line_sets_documented_properties_to_what_ran() -> None:
    point = make_point(2, 4, 100, batch=2)
    words = shlex.split(dlstreamer_pipeline(point, "/m/net.xml").text)
    assert words[0] == "gst-launch-1.0"
    start = words.index("gvainference") + 1
    properties = dict(w.split("=", 1) for w in words[start:words.index("!", start)])
    assert set(properties) <= DLSTREAMER_PROPERTIES
    assert properties["model"] == "/m/net.xml" and properties["device"] == "CPU"
    assert properties["nireq"] == "4" and properties["batch-size"] == "2"
    ie_config = dict(pair.split("=", 1) for pair in properties["ie-config"].split(","))
    assert ie_config == point.deploy_properties()


def test_fp16_names_the_ir_to_make_and_the_command_makes_it(tiny_model: Path, tmp_path: Path) -> None:
    source = tmp_path / "net.xml"
    source.write_bytes(tiny_model.read_bytes())
    source.with_suffix(".bin").write_bytes(tiny_model.with_suffix(".bin").read_bytes())
    made = deploy_model(make_point(1, 1, 50, precision=Precision.FP16), str(source))
    assert made.path == str(tmp_path / "net_fp16.xml") and made.make is not None
    done = subprocess.run(shlex.split(made.make.replace("python3", sys.executable, 1)), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    constants = [op for op in ov.Core().read_model(made.path).get_ops() if op.get_type_name() == "Constant"]
    assert any(op.get_output_element_type(0) == ov.Type.f16 for op in constants)
    assert deploy_model(make_point(1, 1, 50), str(source)).make is None  # fp32 loads the user's own file


def test_recommend_writes_each_format_for_the_model_the_user_gave(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    run_sweep(quick_spec(tiny_model, out, streams=(1,), nireq=(2,)))
    stored_model = load_results(out).environment.model_path
    for fmt in ("python", "benchmark_app", "load_config", "ovms", "dlstreamer", "json"):
        target = tmp_path / f"deploy.{fmt}"
        shown = CliRunner().invoke(app, ["recommend", str(out), "--format", fmt, "-o", str(target)])
        assert shown.exit_code == 0, shown.output
        text = target.read_text()
        assert "cache" not in text
        if fmt in ("load_config", "ovms", "json"):
            json.loads(text)
        if fmt in ("python", "benchmark_app", "ovms", "dlstreamer"):
            assert Path(stored_model).stem in text


def test_recommend_opens_with_an_answer_on_one_screen_of_100_columns(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    run_sweep(quick_spec(tiny_model, out, streams=(1, 2), nireq=(1, 2)))
    shown = ov_tuner("recommend", str(out), env={"COLUMNS": "100"})
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    block = lines[:next(i for i, line in enumerate(lines) if "(figures)" in line) + 1]  # through the details row
    assert block[0].startswith("deploy") and any(line.startswith("details") for line in block)
    assert len(block) <= 25 and max(len(line.rstrip()) for line in block) <= 100, block


def test_o_without_a_format_is_one_clear_line(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    run_sweep(quick_spec(tiny_model, out, streams=(1,), nireq=(1,)))
    done = ov_tuner("recommend", str(out), "-o", str(tmp_path / "x.txt"))
    assert_one_line(done, "-o writes one form", "--format")
    assert done.returncode == 2 and not (tmp_path / "x.txt").exists()


def test_no_output_replaces_the_results_file_or_the_model_it_was_given(tiny_model: Path, tmp_path: Path) -> None:
    """recommend -o / --config-out and export -o naming the results file they read, and a job's --out naming the
    model, are one line each; both files stay byte for byte."""
    out = tmp_path / "r.db"
    run_sweep(quick_spec(tiny_model, out, streams=(1,), nireq=(1,)))
    before = out.read_bytes(), tiny_model.read_bytes()
    for args in (("recommend", str(out), "--format", "json", "-o", str(out)),
                 ("recommend", str(out), "--config-out", str(out)), ("export", str(out), "-o", str(out)),
                 ("profile", str(tiny_model), "--precision", "fp32", "--out", str(tiny_model))):
        assert_one_line(ov_tuner(*args), "would replace", "which you gave as input")
    assert (out.read_bytes(), tiny_model.read_bytes()) == before


@pytest.mark.parametrize(("model", "batch", "given", "shape"), [
    ("tiny_model", 2, {}, [2, 8, 16, 16]), ("batch_one_only_model", 1, {}, [1, 8, 4, 4]),
    ("spatially_dynamic_model", 2, {"": [1, 3, 24, 40]}, [2, 3, 24, 40])])
def test_benchmark_app_and_python_run_the_recommended_compile(model: str, batch: int, given: dict[str, list[int]],
                                                              shape: list[int], request: pytest.FixtureRequest,
                                                              tmp_path: Path) -> None:
    """The printed benchmark_app form, the line printed beside a -load_config file and the Python form each compile
    what the sweep measured: every property it read back (streams, threads, pinning, precision, hint) and the input
    shape, on an IR with a dynamic batch (tiny_model: [?,8,16,16]), a static one, and one whose height and width
    the sweep's --shape gave ([?,3,?,?]: the results file keeps --shape for the forms)."""
    source: Path = request.getfixturevalue(model)
    db = tmp_path / "r.db"
    run_sweep(quick_spec(source, db, streams=(2,), nireq=(2,), batches=(batch,), shapes=given))
    (point,) = load_results(db).points
    expected = measured(point)
    assert {"PERFORMANCE_HINT", "INFERENCE_NUM_THREADS", "ENABLE_CPU_PINNING"} <= set(expected)

    script, steps = recommend_form(db, "benchmark_app", tmp_path / "run.sh")
    assert f"sh {tmp_path / 'run.sh'}" in steps and "-hint" not in script and "-nstreams" not in script
    compiled, shapes = run_benchmark_app(script, tmp_path)
    assert {k: compiled.get(k) for k in expected} == expected and shapes == [str(shape).replace(" ", "")]
    assert json.loads((tmp_path / "load_config.json").read_text()) == {"CPU": point.deploy_properties()}

    config, steps = recommend_form(db, "load_config", tmp_path / "mine.json")
    (line,) = [s for s in steps if s.startswith("benchmark_app ")]
    assert f"-load_config {tmp_path / 'mine.json'}" in line and json.loads(config) == {"CPU": point.deploy_properties()}
    compiled, shapes = run_benchmark_app(line, tmp_path)
    assert {k: compiled.get(k) for k in expected} == expected and shapes == [str(shape).replace(" ", "")]

    code, _ = recommend_form(db, "python", tmp_path / "deploy.py")
    ran = run_python(code, tmp_path)
    assert {k: ran.get(k) for k in expected} == expected
    assert ran["shape"] == [shape] and ran["requests"] == point.nireq


def test_a_baseline_deploys_what_openvino_chose_on_this_host(tiny_model: Path, tmp_path: Path) -> None:
    """OpenVINO's own choice (no precision hint, no streams) runs under benchmark_app as it ran in the sweep: the
    precision it read back (f32 or bf16, by the host's CPU) and the streams, as the compile chose them here."""
    db = tmp_path / "r.db"
    run_sweep(quick_spec(tiny_model, db, streams=(1,), nireq=(1,), baselines=True))
    default = next(p for p in load_results(db).points if p.ok and p.config.mode is Mode.DEFAULT)
    snippets = deploy_snippets(default, str(tiny_model), inputs=measured_inputs(default, str(tiny_model)))
    assert "INFERENCE_PRECISION_HINT" not in snippets.properties and "NUM_STREAMS" not in snippets.properties
    compiled, shapes = run_benchmark_app(snippets.benchmark_app, tmp_path)
    expected = measured(default)
    assert {k: compiled.get(k) for k in expected} == expected and shapes == ["[1,8,16,16]"]


def test_a_shape_a_results_file_does_not_keep_is_said(spatially_dynamic_model: Path) -> None:
    """A results file from before ov-tuner kept --shape, on a model whose height and width were dynamic: the forms set
    the batch alone and say what to give."""
    point = make_point(1, 1, 50, batch=2)
    shapes = measured_inputs(point, str(spatially_dynamic_model))
    snippets = deploy_snippets(point, str(spatially_dynamic_model), inputs=shapes)
    assert shapes is None and snippets.inputs is None and "ov.set_batch(model, 2)" in snippets.python
    assert any("keeps no --shape" in n for n in snippets.notes)


def test_a_model_not_here_sets_the_batch_and_says_so() -> None:
    point = make_point(1, 1, 50, batch=2)
    snippets = deploy_snippets(point, "/gone/net.xml", inputs=measured_inputs(point, "/gone/net.xml"))
    assert "ov.set_batch(model, 2)" in snippets.python and "-shape" not in snippets.benchmark_app_line
    assert any("/gone/net.xml is not readable" in n for n in snippets.notes)


def test_each_form_written_to_a_file_names_it_and_config_out_goes_with_every_format(tiny_model: Path,
                                                                                    tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    run_sweep(quick_spec(tiny_model, db, streams=(1,), nireq=(1,)))
    _, steps = recommend_form(db, "ovms", tmp_path / "serve.json")
    assert steps[-1].startswith(f"ovms --config_path {tmp_path / 'serve.json'} ")
    config = tmp_path / "from_config_out.json"
    script, steps = recommend_form(db, "benchmark_app", tmp_path / "run.sh", "--config-out", str(config))
    assert json.loads(config.read_text()) == json.loads(script.split("<<'EOF'\n")[1].split("\nEOF\n")[0])
    assert f"-load_config {config}" in script and f"wrote {config}" in steps
    stdout_only = CliRunner().invoke(app, ["recommend", str(db), "--format", "benchmark_app"])
    assert stdout_only.exit_code == 0 and stdout_only.stdout.startswith("cat > load_config.json <<'EOF'")


@pytest.fixture(scope="module")
def int8_answer(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A results file whose answer is an INT8 IR the user does not have yet: the file, the command that makes it, and
    the path it makes."""
    db = tmp_path_factory.mktemp("int8_answer") / "r.db"
    point = make_point(2, 2, 200, precision=Precision.INT8)
    source = "/models/net.xml"
    made = str(int8_ir_path(Path(source)))
    command = shlex.join(["ov-tuner", "quantize", source, "-o", made])
    quantization = Quantization("/cache/net_int8.xml", False, 10, True, 8, 8, Int8Options(), "3.4.0", 1.0, False,
                                command)
    with ResultStore(db) as store:
        store.claim(Environment("2026.4.1-x", "0.1.0", "host", "CPU", 2, "3.11.7", source, "0" * 64, "net"),
                    SWEEP_WRITER)
        store.record_quantization(quantization)
        assert point.compile is not None
        store.add_point(point, store.add_compile(point.compile))
    return db, command, made


def _made_before_read(lines: list[str], command: str, made: str) -> None:
    """The command that makes `made` is printed once, before every line that reads it."""
    lines = [line.removeprefix("# ") for line in lines]
    assert lines.count(command) == 1, lines
    readers = [i for i, line in enumerate(lines) if made in line and line != command
               and not line.startswith("First make")]
    assert readers and lines.index(command) < min(readers), lines


@pytest.mark.parametrize("fmt", ["python", "benchmark_app", "load_config", "ovms", "dlstreamer", "ray"])
def test_the_model_to_make_is_printed_before_every_command_that_reads_it(fmt: str, int8_answer: tuple[Path, str, str],
                                                                        tmp_path: Path) -> None:
    """Written to a file (with --config-out, whose benchmark_app line reads the model too) and printed alone: the
    quantize step comes first."""
    db, command, made = int8_answer
    args = [str(db), "--max-accuracy-loss", "none", "--format", fmt]
    _, steps = recommend_form(db, fmt, tmp_path / "form", "--max-accuracy-loss", "none", "--config-out",
                              str(tmp_path / "config.json"))
    _made_before_read(steps, command, made)
    shown = CliRunner().invoke(app, ["recommend", *args])
    assert shown.exit_code == 0, shown.output
    _made_before_read(shown.output.splitlines(), command, made)


def test_the_text_answer_says_to_make_the_model_before_its_forms(int8_answer: tuple[Path, str, str],
                                                                 tmp_path: Path) -> None:
    db, command, made = int8_answer
    shown = ov_tuner("recommend", str(db), "--max-accuracy-loss", "none", "--config-out", str(tmp_path / "c.json"),
                     env={"COLUMNS": "250"})
    assert shown.returncode == 0, shown.stderr
    _made_before_read([line.strip() for line in shown.stdout.splitlines()], command, made)
