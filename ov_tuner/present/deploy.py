"""Every form `recommend --format` writes: Python, the -load_config file and the benchmark_app line that loads it
(formats.py), JSON, and for the servers edge teams deploy on, an OpenVINO Model Server config.json with the command
that serves it and a DL Streamer pipeline. All carry the properties that ran, and each names the file it is written to
(-o) in the steps that use it.

The tests run the Python form and benchmark_app on a sweep's answer and compare what they compiled with what the sweep
read back. OVMS and DL Streamer do not run there: the OVMS config is checked against OVMS's own JSON schema
(src/schema.cpp), the pipeline against the inference elements' documented properties, in
tests/test_deploy_formats.py."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from ov_tuner.analyse.answer import Answer
from ov_tuner.present.answer_json import answer_json
from ov_tuner.present.box_forms import kubernetes_resources, ray_actor
from ov_tuner.present.formats import (
    LOAD_CONFIG_FILE,
    DeployModel,
    deploy_model,
    deploy_snippets,
)
from ov_tuner.schema import PointResult, Quantization

# The DL Streamer element a pipeline names: gvadetect and gvaclassify take the same properties.
ELEMENT = "gvainference"
OVMS_MODELS = "/models"
OVMS_CONFIG = "config.json"


@dataclass(frozen=True)
class ServerForm:
    """A file to write (the config, or the pipeline line) and the steps that use it."""

    text: str
    steps: tuple[str, ...]
    model: DeployModel


def served_name(source: str) -> str:
    """The name a server gives the model: the file's stem, in the characters OVMS allows in a path."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", Path(source).stem) or "model"


def ovms_config(point: PointResult, source: str, quantization: Quantization | None = None,
                config_path: str = OVMS_CONFIG) -> ServerForm:
    """An OVMS config.json serving the model with the measured device, requests, batch and compile properties,
    and the steps to lay out the model and start the server on it (written to `config_path`)."""
    name, made = served_name(source), deploy_model(point, source, quantization)
    config = {"name": name, "base_path": f"{OVMS_MODELS}/{name}", "target_device": point.config.device,
              "nireq": point.nireq, "batch_size": point.config.batch, "plugin_config": point.deploy_properties()}
    text = json.dumps({"model_config_list": [{"config": config}]}, indent=2)
    files = [made.path, str(Path(made.path).with_suffix(".bin"))] if made.path.endswith(".xml") else [made.path]
    steps = (*((made.make,) if made.make else ()),
             f"mkdir -p {OVMS_MODELS}/{name}/1 && cp {' '.join(map(shlex.quote, files))} {OVMS_MODELS}/{name}/1/",
             f"ovms --config_path {shlex.quote(config_path)} --port 9000 --rest_port 8000")
    return ServerForm(text, steps, made)


def dlstreamer_pipeline(point: PointResult, source: str, quantization: Quantization | None = None) -> ServerForm:
    """A gst-launch-1.0 line whose inference element runs the measured device, requests, batch and properties
    (ie-config, KEY=VALUE pairs joined by commas, as DL Streamer parses it)."""
    made = deploy_model(point, source, quantization)
    ie_config = ",".join(f"{k}={v}" for k, v in point.deploy_properties().items())
    element = [ELEMENT, f"model={made.path}", f"device={point.config.device}", f"nireq={point.nireq}",
               f"batch-size={point.config.batch}", f"ie-config={ie_config}"]
    line = ["gst-launch-1.0", "filesrc", "location=input.mp4", "!", "decodebin3", "!", *element, "!", "queue", "!",
            "gvafpscounter", "!", "fakesink", "sync=false"]
    text = " ".join(w if w == "!" else shlex.quote(w) for w in line)  # a bare '!', as gst-launch lines are written
    return ServerForm(text, (made.make,) if made.make else (), made)


class DeployFormat(str, Enum):
    """What `recommend` prints: the answer with every form (text), or one form alone, ready to write to a file."""

    TEXT = "text"
    PYTHON = "python"
    BENCHMARK_APP = "benchmark_app"
    LOAD_CONFIG = "load_config"
    OVMS = "ovms"
    DLSTREAMER = "dlstreamer"
    KUBERNETES = "kubernetes"
    RAY = "ray"
    JSON = "json"


def deploy_form(fmt: DeployFormat, answer: Answer, written_to: str | None = None, config_file: str | None = None,
                ) -> tuple[str, tuple[str, ...]]:
    """One deploy form of `answer` as file text, and the steps around it (make the model, lay it out, start the
    server), which name the file it is `written_to` where it is written to one. `config_file`: where the -load_config
    file is (recommend --config-out), for the benchmark_app line to name."""
    winner, source, quantization = answer.recommendation.winner, answer.model, answer.quantization
    make = deploy_model(winner, source, quantization).make
    first = (make,) if make else ()
    if fmt is DeployFormat.JSON:
        return json.dumps(answer_json(answer), indent=2), ()
    if fmt is DeployFormat.OVMS:
        form = ovms_config(winner, source, quantization, written_to or OVMS_CONFIG)
        return form.text, form.steps
    if fmt is DeployFormat.DLSTREAMER:
        return dlstreamer_pipeline(winner, source, quantization).text, (
            *first, *((f"sh {shlex.quote(written_to)}",) if written_to else ()))
    if fmt is DeployFormat.LOAD_CONFIG:
        snippets = deploy_snippets(winner, source, quantization, written_to or config_file or LOAD_CONFIG_FILE,
                                   answer.inputs)
        return snippets.load_config, (*first, snippets.benchmark_app_line)
    if fmt is DeployFormat.KUBERNETES:
        return kubernetes_resources(answer.box), first
    snippets = deploy_snippets(winner, source, quantization, config_file or LOAD_CONFIG_FILE, answer.inputs)
    if fmt is DeployFormat.RAY:
        return ray_actor(winner, snippets, answer.box).rstrip("\n"), first
    if fmt is DeployFormat.PYTHON:
        return snippets.python.rstrip("\n"), (*first, *((f"python3 {shlex.quote(written_to)}",) if written_to else ()))
    return snippets.benchmark_app, (*first, *((f"sh {shlex.quote(written_to)}",) if written_to else ()))
