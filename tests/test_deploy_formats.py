"""Every `recommend --format` form parses or has its documented shape, names the model the user gave (or the command
that makes the IR it loads), and carries the properties that ran. OVMS and DL Streamer cannot run here: the config is
checked against OVMS's own schema, the pipeline against the elements' documented properties."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import jsonschema
import openvino as ov
from conftest import quick_spec
from factories import assert_one_line, make_point, ov_tuner
from typer.testing import CliRunner

from ov_tuner.cli import app
from ov_tuner.present.deploy import dlstreamer_pipeline, ovms_config
from ov_tuner.present.formats import deploy_model, deploy_properties
from ov_tuner.schema import Precision
from ov_tuner.store.results import load_results
from ov_tuner.sweep import run_sweep

OVMS_SCHEMA = json.loads((Path(__file__).parent / "data" / "ovms_config_schema.json").read_text())
# The properties gvainference, gvadetect and gvaclassify share (GvaBaseInference in DL Streamer's
# src/monolithic/gst/inference_elements/base/gva_base_inference.cpp and docs/source/elements/*.md, commit 94fe7fe).
DLSTREAMER_PROPERTIES = {"model", "model-proc", "device", "nireq", "batch-size", "ie-config", "pre-process-backend",
                         "pre-process-config", "inference-interval", "inference-region", "scheduling-policy",
                         "model-instance-id", "object-class", "labels", "labels-file", "reshape", "reshape-width",
                         "reshape-height", "scale-method", "custom-preproc-lib", "custom-postproc-lib",
                         "ov-extension-lib", "share-va-display-ctx", "no-block", "qos", "name"}


def test_the_ovms_config_follows_the_ovms_schema_and_carries_what_ran() -> None:
    point = make_point(2, 4, 100, batch=2)
    form = ovms_config(point, "/work/models/net.xml")
    config = json.loads(form.text)
    jsonschema.validate(config, OVMS_SCHEMA)
    (entry,) = config["model_config_list"]
    assert entry["config"]["nireq"] == 4 and entry["config"]["batch_size"] == 2
    assert entry["config"]["target_device"] == "CPU"
    assert entry["config"]["plugin_config"] == deploy_properties(point)
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
    assert ie_config == deploy_properties(point)


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
