"""A single model's forms, as `recommend --format` writes a sweep's answer (MODEL_FORMS, handed over by its
registration): Python, the -load_config file and the benchmark_app line that loads it (formats.py), an OpenVINO Model
Server config.json with the command that serves it, a DL Streamer pipeline, a Kubernetes container's resources and a
Ray actor (box_forms.py), and JSON. All carry the properties that ran, and each names the file it is written to (-o) in
the steps that use it.

The tests run the Python form and benchmark_app on a sweep's answer and compare what they compiled with what the sweep
read back. OVMS and DL Streamer do not run there: the OVMS config is checked against OVMS's own JSON schema
(src/schema.cpp), the pipeline against the inference elements' documented properties, in
tests/test_deploy_formats.py."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from ov_tuner.analyse.answer import Answer
from ov_tuner.present.box_forms import Remeasure, kubernetes_resources, ray_actor
from ov_tuner.present.deploy import Form, Forms, Where, run_step
from ov_tuner.present.deploy_format import DeployFormat
from ov_tuner.present.formats import LOAD_CONFIG_FILE, DeployModel, DeploySnippets, deploy_model, deploy_snippets
from ov_tuner.present.servers import (
    OVMS_CONFIG,
    OVMS_MODELS,
    VIDEO_STANDIN,
    ServedModel,
    dlstreamer_line,
    inference_element,
    ovms_config_text,
)
from ov_tuner.schema import PointResult, Quantization
from ov_tuner.workloads.sweep.present.answer_json import answer_json

# The DL Streamer element a single model's pipeline names: gvadetect and gvaclassify take the same properties.
ELEMENT = "gvainference"


@dataclass(frozen=True)
class ServerForm:
    """A file to write (the config, or the pipeline line), the steps that use it, and the model it loads (with the
    command that makes it, to run before those steps)."""

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
    text = ovms_config_text([ServedModel(name, point.config.device, point.nireq, point.deploy_properties(),
                                         point.config.batch)])
    files = [made.path, str(Path(made.path).with_suffix(".bin"))] if made.path.endswith(".xml") else [made.path]
    steps = (f"mkdir -p {OVMS_MODELS}/{name}/1 && cp {' '.join(map(shlex.quote, files))} {OVMS_MODELS}/{name}/1/",
             f"ovms --config_path {shlex.quote(config_path)} --port 9000 --rest_port 8000")
    return ServerForm(text, steps, made)


def dlstreamer_pipeline(point: PointResult, source: str, quantization: Quantization | None = None) -> ServerForm:
    """A gst-launch-1.0 line whose inference element runs the measured device, requests, batch and properties."""
    made = deploy_model(point, source, quantization)
    element = inference_element(ELEMENT, made.path, point.config.device, point.nireq, point.deploy_properties(),
                                f"batch-size={point.config.batch}")
    return ServerForm(dlstreamer_line(VIDEO_STANDIN, [element]), (), made)


def _made_first(answer: Answer) -> tuple[str, ...]:
    """The command that makes the model the forms load, where it is not the user's own file."""
    make = deploy_model(answer.recommendation.winner, answer.model, answer.quantization).make
    return (make,) if make else ()


def _snippets(answer: Answer, config_file: str) -> DeploySnippets:
    """The Python and benchmark_app forms, their benchmark_app line naming the -load_config `config_file`."""
    return deploy_snippets(answer.recommendation.winner, answer.model, answer.quantization, config_file,
                           answer.input_shapes)


def _python(answer: Answer, where: Where) -> Form:
    python = _snippets(answer, where.config_file or LOAD_CONFIG_FILE).python
    return Form(python.rstrip("\n"), _made_first(answer), run_step("python3", where))


def _benchmark_app(answer: Answer, where: Where) -> Form:
    script = _snippets(answer, where.config_file or LOAD_CONFIG_FILE).benchmark_app
    return Form(script, _made_first(answer), run_step("sh", where))


def _load_config(answer: Answer, where: Where) -> Form:
    snippets = _snippets(answer, where.written_to or where.config_file or LOAD_CONFIG_FILE)
    return Form(snippets.load_config, _made_first(answer), (snippets.benchmark_app_line,))


def _ovms(answer: Answer, where: Where) -> Form:
    form = ovms_config(answer.recommendation.winner, answer.model, answer.quantization,
                       where.written_to or OVMS_CONFIG)
    return Form(form.text, _made_first(answer), form.steps)


def _dlstreamer(answer: Answer, where: Where) -> Form:
    form = dlstreamer_pipeline(answer.recommendation.winner, answer.model, answer.quantization)
    return Form(form.text, _made_first(answer), run_step("sh", where))


# How a sweep's user measures again: with the limit its --cpus sets, or at all where the file predates the box.
SWEEP_REMEASURE = Remeasure("sweep with --cpus N for the limit you will set",
                            "(swept before ov-tuner read them):\n# sweep again to get the limit it holds under")


def _kubernetes(answer: Answer, where: Where) -> Form:
    return Form(kubernetes_resources(answer.box, SWEEP_REMEASURE), _made_first(answer))


def _ray(answer: Answer, where: Where) -> Form:
    snippets = _snippets(answer, where.config_file or LOAD_CONFIG_FILE)
    return Form(ray_actor(answer.recommendation.winner, snippets, answer.box).rstrip("\n"), _made_first(answer))


def _json(answer: Answer, where: Where) -> Form:
    return Form(json.dumps(answer_json(answer), indent=2))


# A single model's forms (a sweep's answer).
MODEL_FORMS: Forms = {
    DeployFormat.PYTHON: _python, DeployFormat.BENCHMARK_APP: _benchmark_app, DeployFormat.LOAD_CONFIG: _load_config,
    DeployFormat.OVMS: _ovms, DeployFormat.DLSTREAMER: _dlstreamer, DeployFormat.KUBERNETES: _kubernetes,
    DeployFormat.RAY: _ray, DeployFormat.JSON: _json,
}
