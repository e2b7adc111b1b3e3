"""The deploy forms for the box a deployment runs in: a Kubernetes container's resources hold the CPUs the answer
was measured on (the Ray actor, run by Ray, is tested beside the fleet's local Ray cluster in test_fleet.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import quick_spec
from factories import ov_tuner

from ov_tuner.present.box_forms import kubernetes_resources
from ov_tuner.schema import Box
from ov_tuner.store.results import load_results
from ov_tuner.workloads.sweep import run_sweep
from ov_tuner.workloads.sweep.present.deploy_forms import SWEEP_REMEASURE


def test_the_kubernetes_resources_hold_the_box_the_answer_was_measured_in() -> None:
    box = Box(8, tuple(range(8)), 1.5, "cgroup v2 cpu.max", 2**31)
    quota = yaml.safe_load(kubernetes_resources(box, SWEEP_REMEASURE))
    assert quota == {"resources": {"requests": {"cpu": "1500m", "memory": "2048Mi"},
                                   "limits": {"cpu": "1500m", "memory": "2048Mi"}}}
    cpuset = yaml.safe_load(kubernetes_resources(Box(8, (0, 1, 2, 3), None, None, None), SWEEP_REMEASURE))
    assert cpuset["resources"]["limits"] == {"cpu": "4"} == cpuset["resources"]["requests"]
    assert yaml.safe_load(kubernetes_resources(None, SWEEP_REMEASURE)) is None  # only a comment: no limit is made up


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
