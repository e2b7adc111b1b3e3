"""The deploy forms for the box a deployment runs in: a Kubernetes container's resources and a Ray actor, each
holding the CPUs the answer was measured on; the Ray actor is run by Ray and compiles what the sweep measured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import openvino as ov
import pytest
import yaml
from conftest import quick_spec
from factories import ov_tuner

from ov_tuner.devices.decisions import type_name
from ov_tuner.present.box_forms import kubernetes_resources
from ov_tuner.schema import Box, Mode
from ov_tuner.store.results import load_results
from ov_tuner.sweep import run_sweep


def test_the_kubernetes_resources_hold_the_box_the_answer_was_measured_in() -> None:
    quota = yaml.safe_load(kubernetes_resources(Box(8, tuple(range(8)), 1.5, "cgroup v2 cpu.max", 2**31)))
    assert quota == {"resources": {"requests": {"cpu": "1500m", "memory": "2048Mi"},
                                   "limits": {"cpu": "1500m", "memory": "2048Mi"}}}
    cpuset = yaml.safe_load(kubernetes_resources(Box(8, (0, 1, 2, 3), None, None, None)))
    assert cpuset["resources"]["limits"] == {"cpu": "4"} == cpuset["resources"]["requests"]
    assert yaml.safe_load(kubernetes_resources(None)) is None  # only a comment: no limit is made up


@pytest.fixture(scope="module")
def answered(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("box_forms") / "r.db"
    run_sweep(quick_spec(tiny_model, out, streams=(1, 2), nireq=(2,)))
    return out


def test_recommend_writes_the_kubernetes_resources_of_its_box(answered: Path) -> None:
    done = ov_tuner("recommend", str(answered), "--format", "kubernetes")
    assert done.returncode == 0, done.stderr
    box = load_results(answered).environment.box
    assert box is not None
    assert yaml.safe_load(done.stdout)["resources"]["limits"]["cpu"] == f"{box.cpus:g}"


def test_the_ray_actor_runs_in_ray_and_compiles_what_was_measured(answered: Path, tiny_model: Path,
                                                                   tmp_path: Path) -> None:
    done = ov_tuner("recommend", str(answered), "--format", "ray", "-o", str(tmp_path / "actor.py"))
    assert done.returncode == 0, done.stderr
    point = next(p for p in load_results(answered).points if p.ok and p.config.mode is Mode.EXPLICIT
                 and p.config == json_config(answered))
    keys = ("NUM_STREAMS", "INFERENCE_NUM_THREADS", "INFERENCE_PRECISION_HINT", "ENABLE_CPU_PINNING")
    script = (f"import sys, json, numpy as np, ray; sys.path.insert(0, {str(tmp_path)!r}); from actor import Model; "
              "ray.init(num_cpus=2, include_dashboard=False, logging_level=40, log_to_driver=False); "
              f"model = Model.remote(); shape = {input_shape(tiny_model)!r}; "
              "outputs = ray.get([model.infer.remote(np.ones(shape, np.float32)) for _ in range(4)]); "
              f"seen = ray.get(model.__ray_call__.remote(lambda self: {{k: str(self.compiled.get_property(k)) "
              f"for k in {keys!r}}})); "
              "print(json.dumps({'outputs': len(outputs), 'seen': seen}))")
    alone = {**os.environ, "HOME": str(tmp_path), "RAY_AUTH_MODE": "disabled"}  # leaves no Ray token in ~/.ray
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=180, env=alone)
    assert ran.returncode == 0, ran.stderr[-2000:]
    found = json.loads(ran.stdout.strip().splitlines()[-1])
    assert found["outputs"] == 4
    assert point.compile is not None
    back = point.compile.read_back
    seen = {k: {"True": "YES", "False": "NO"}.get(v, type_name(v) if v.startswith("<Type:") else v)
            for k, v in found["seen"].items()}  # as the sweep stores what it read back
    assert seen == {"NUM_STREAMS": str(point.streams), "INFERENCE_PRECISION_HINT":
                             point.compile.inference_precision, **{k: back[k] for k in keys[1:] if k in back}}


def input_shape(model: Path) -> list[int]:
    """The model's input at batch 1."""
    dims = ov.Core().read_model(model).inputs[0].get_partial_shape()
    return [1, *(d.get_length() for d in list(dims)[1:])]


def json_config(results: Path) -> object:
    """The configuration `recommend --json` deploys."""
    payload = json.loads(ov_tuner("recommend", str(results), "--json").stdout)["deploy"]
    stored = load_results(results)
    return next(p.config for p in stored.points if p.config.mode is Mode.EXPLICIT
                and (p.config.streams, p.config.nireq, p.config.precision.value) ==
                (payload["streams"], payload["nireq"], payload["precision"]))
