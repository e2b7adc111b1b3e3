"""OpenVINO's virtual devices, --set axes, compile caching and host CPU cost on the real CPU plugin, through the same
code a GPU takes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import quick_spec
from typer.testing import CliRunner

from ov_tuner.analyse.virtual import virtual_comparisons
from ov_tuner.cli import app
from ov_tuner.schema import Mode, Search, StopRule
from ov_tuner.schema.devices import auto_batched
from ov_tuner.store.results import load_results
from ov_tuner.workloads.sweep import run_sweep

VIRTUAL = ("AUTO:CPU", "MULTI:CPU", "HETERO:CPU", "BATCH:CPU(4)")


def test_virtual_devices_are_swept_over_hints_and_requests(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    spec = quick_spec(tiny_model, out, devices=("CPU", *VIRTUAL), streams=None, nireq=None, search=Search.SMART,
                      stop=StopRule(window_s=0.05, fixed_s=0.1))
    summary = run_sweep(spec)
    assert summary.failed == 0
    stored = load_results(out)
    by_device = {d: [p for p in stored.points if p.config.device == d] for d in VIRTUAL}
    for device, points in by_device.items():
        assert points, device
        assert all(p.config.explicit and p.config.mode is not Mode.EXPLICIT and p.config.nireq > 0 for p in points)
        assert all(p.compile is not None and "CPU" in p.compile.execution_devices[0] for p in points)
        assert all(p.compile is not None and p.compile.read_back.get("CPU:NUM_STREAMS") for p in points
                   if not device.startswith("BATCH"))  # the member's own streams, read back
    assert {p.config.mode for p in by_device["AUTO:CPU"]} == {Mode.LATENCY, Mode.THROUGHPUT,
                                                             Mode.CUMULATIVE_THROUGHPUT}
    assert all(p.compile is not None and p.compile.requested["ENABLE_STARTUP_FALLBACK"] == "NO"
               for p in by_device["AUTO:CPU"])
    assert all(p.compile is not None and auto_batched(p.compile.read_back) for p in by_device["BATCH:CPU(4)"])
    compared = {v.virtual.config.device for v in virtual_comparisons(stored.points, stored.devices)}
    assert compared == set(VIRTUAL)  # each against the tuned CPU alone


def test_set_makes_a_property_an_axis_that_changes_the_configuration_and_the_cores_used(default_model: Path,
                                                                                         tmp_path: Path) -> None:
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: one and two inference threads run alike")
    out = tmp_path / "r.db"
    spec = quick_spec(default_model, out, streams=(1,), nireq=(1,), settings={"INFERENCE_NUM_THREADS": ("1", "2")},
                      stop=StopRule(window_s=0.1, fixed_s=0.6))
    run_sweep(spec)
    points = {p.config.settings: p for p in load_results(out).points}
    one, two = points[(("INFERENCE_NUM_THREADS", "1"),)], points[(("INFERENCE_NUM_THREADS", "2"),)]
    assert one.compile is not None and one.compile.read_back["INFERENCE_NUM_THREADS"] == "1"
    assert two.compile is not None and two.compile.read_back["INFERENCE_NUM_THREADS"] == "2"
    # Two threads on one stream keep two cores busy: the process's CPU time per wall second shows it whatever else
    # the shared host runs (its FPS need not: a neighbour on the second core takes the gain away).
    busy = [p.measurement.process_cpu_s / p.measurement.wall_s for p in (one, two)
            if p.measurement is not None and p.measurement.process_cpu_s is not None]
    assert len(busy) == 2 and busy[1] > 1.3 * busy[0], busy
    assert "INFERENCE_NUM_THREADS=1" in one.config.label()


def test_set_keys_and_values_the_device_refuses_get_one_line_naming_what_it_takes(tiny_model: Path,
                                                                                  tmp_path: Path) -> None:
    runner = CliRunner()
    base = ["sweep", str(tiny_model), "--out", str(tmp_path / "r.db"), "--precision", "fp32"]
    key = runner.invoke(app, [*base, "--set", "NO_SUCH_KEY=1"])
    assert key.exit_code != 0 and "Traceback" not in key.stderr
    assert "--set NO_SUCH_KEY: CPU has no property NO_SUCH_KEY one can set; it has" in key.stderr
    assert "INFERENCE_NUM_THREADS" in key.stderr
    value = runner.invoke(app, [*base, "--set", "ENABLE_CPU_PINNING=MAYBE"])
    assert value.exit_code != 0 and "Expected only true/false" in value.stderr
    own = runner.invoke(app, [*base, "--set", "NUM_STREAMS=4"])
    assert own.exit_code != 0 and "use --streams" in own.stderr
    assert not (tmp_path / "r.db").exists()


def test_a_named_cache_folder_serves_later_compiles_and_says_which(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    run_sweep(quick_spec(tiny_model, out, streams=(1, 2), nireq=(2,), cache_dir=tmp_path / "cache",
                         cache_everywhere=True))
    loaded = [p.compile.from_cache for p in load_results(out).points if p.compile is not None]
    assert loaded == [False, True]  # the first compile writes the blob, the next (other streams) reads it
    assert list((tmp_path / "cache").iterdir())


def test_every_point_stores_the_process_cpu_time_it_cost(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    run_sweep(quick_spec(tiny_model, out, streams=(1,), nireq=(1, 2)))
    for p in load_results(out).points:
        assert p.measurement is not None and p.measurement.cpu_ms_per_request is not None
        assert p.measurement.cpu_ms_per_request > 0
    shown = CliRunner().invoke(app, ["show", str(out)]).stdout
    assert "CPU ms/req" in shown
