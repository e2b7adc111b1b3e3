"""Tuning inside the box a deployment gets: the search fits a CPU quota (pure), the results file keeps the box,
and a real sweep under a quota ov-tuner sets up itself measures inside it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import quick_spec
from factories import assert_one_line, ov_tuner

from ov_tuner.devices.box import read_box
from ov_tuner.devices.quota import PREFIX, QuotaUnavailable, cpu_quota
from ov_tuner.present.words.box import box_text, cpu_list
from ov_tuner.schema import Box, DeviceInfo, Mode, SweepSpec
from ov_tuner.store.results import load_results
from ov_tuner.workloads.sweep import run_sweep
from ov_tuner.workloads.sweep.plan import THREADS, box_threads, fit_to_box, plan

CPU = DeviceInfo("CPU", "a CPU", (1, 4), 1, ("FP32",), "f32")
GPU = DeviceInfo("GPU", "a GPU", (1, 2), 4, ("FP32", "FP16"), "f16")


def test_the_threads_fit_the_quota() -> None:
    assert box_threads(1.0) == ("1",) and box_threads(0.5) == ("1",)
    assert box_threads(1.5) == ("1", "2") and box_threads(3.0) == ("3",)


def test_a_quota_adds_threads_and_stops_auto_streams_at_them(tmp_path: Path) -> None:
    spec = SweepSpec(tmp_path / "m.xml", tmp_path / "r.db", precisions=None)
    fitted = fit_to_box(spec, [CPU], 1.5)
    assert fitted.settings == {THREADS: ("1", "2")}
    streams = {(dict(s.settings)[THREADS], s.space.streams) for s in plan(fitted, [CPU])}
    assert streams == {("1", (1,)), ("2", (1, 2))}  # auto streams on this CPU are 1, 2, 4
    default = [s.default_baseline() for s in plan(fitted, [CPU]) if s.hosts_default]
    assert default and all(c.mode is Mode.DEFAULT and c.settings == () for c in default)  # OpenVINO as it is
    assert fit_to_box(spec, [CPU], None) is spec  # the whole host: nothing added
    assert fit_to_box(spec, [CPU, GPU], 1.5) is spec  # the threads are a CPU property
    assert fit_to_box(replace(spec, settings={THREADS: ("4",)}), [CPU], 1.5).settings == {THREADS: ("4",)}
    listed = replace(spec, streams=(1, 2))
    assert fit_to_box(listed, [CPU], 1.5) is listed  # streams the user listed are swept as listed ...
    assert fit_to_box(replace(listed, cpus=1.5), [CPU], 1.5).settings == {THREADS: ("1", "2")}  # ... but --cpus fits


def test_the_box_in_words() -> None:
    assert cpu_list((0, 1, 2, 3, 8, 10, 11)) == "0-3,8,10-11"
    quota = Box(2, (0, 1), 1.0, "cgroup v1 cpu.cfs_quota_us", 2**31)
    assert box_text(quota) == ("1 CPU of 2 under a cgroup quota (cgroup v1 cpu.cfs_quota_us); cpuset 0-1; memory "
                               "limit 2.0 GiB")
    assert box_text(Box(2, (0, 1), None, None, None)) == "all 2 CPUs: no quota; cpuset 0-1"


def test_the_results_file_keeps_the_box_and_refuses_another(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    run_sweep(quick_spec(tiny_model, out, streams=(1,), nireq=(1,)))
    stored = load_results(out).environment.box
    assert stored is not None and stored.bounds == read_box().bounds
    with sqlite3.connect(out) as db:  # the same file, as if measured under a 0.5-CPU quota
        text = db.execute("SELECT value FROM meta WHERE key = 'environment'").fetchone()[0]
        db.execute("UPDATE meta SET value = ? WHERE key = 'environment'",
                   (text.replace('"quota_cpus": null', '"quota_cpus": 0.5'),))
    assert load_results(out).environment.box.quota_cpus == 0.5  # type: ignore[union-attr]
    done = ov_tuner("sweep", str(tiny_model), "--streams", "1", "--nireq", "1", "--seconds", "0.1", "--out", str(out),
                    "--no-baselines", "--no-confirm", "--no-accuracy", "--precision", "fp32")
    assert_one_line(done, "quota 0.5 CPUs) vs now", "tune into a new --out file")


def quota_parent() -> Path:
    """The cgroup under which ov-tuner makes a quota's own on this host; skips the test where it cannot make one."""
    try:
        with cpu_quota(min(1.0, len(os.sched_getaffinity(0)))) as quota:
            return quota.cgroup.parent
    except QuotaUnavailable as e:
        pytest.skip(str(e))


def test_a_sweep_under_a_quota_it_sets_up_measures_inside_it(tiny_model: Path, tmp_path: Path) -> None:
    """--cpus 1: the sweep's box reads the quota it set up, the search adds INFERENCE_NUM_THREADS 1, OpenVINO
    default runs as it is, the empty cgroup a killed run left is removed and said, and the cgroup the sweep made
    (named for its pid) is gone after."""
    parent = quota_parent()
    left = parent / f"{PREFIX}killed-{uuid.uuid4().hex[:8]}"  # as a run killed with SIGKILL leaves its cgroup
    left.mkdir()
    out = tmp_path / "quota.db"
    command = [sys.executable, "-m", "ov_tuner", "sweep", str(tiny_model), "--cpus", "1", "--precision", "fp32",
               "--nireq", "1,2", "--seconds", "0.2", "--window", "0.05", "--no-accuracy", "--passes", "2",
               "--out", str(out)]
    try:
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as sweep:
            stdout, stderr = sweep.communicate(timeout=180)
    finally:
        if left.exists():
            left.rmdir()
    assert sweep.returncode == 0, stderr
    said = (stdout + stderr).splitlines()
    assert any("ov-tuner set that quota up for this sweep (--cpus)" in line for line in said)
    removed = [line for line in said if str(left) in line]  # beside any other run's leftovers
    assert len(removed) == 1 and removed[0].startswith("removed ") and "killed ov-tuner run" in removed[0]
    assert not (parent / f"{PREFIX}{sweep.pid}").exists()
    stored = load_results(out)
    box = stored.environment.box
    assert box is not None and box.quota_cpus == 1.0
    explicit = [p for p in stored.points if p.config.mode is Mode.EXPLICIT]
    assert explicit and all(dict(p.config.settings) == {THREADS: "1"} and p.streams == 1 for p in explicit)
    default = next(p for p in stored.points if p.config.mode is Mode.DEFAULT)
    assert default.config.settings == () and default.compile is not None
    assert "INFERENCE_NUM_THREADS" not in default.compile.requested
