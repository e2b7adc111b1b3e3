"""The sweep end to end on real OpenVINO: compile reuse, storage, resume, failures, clean exit."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import quick_spec
from factories import as_schema_v1, count_rows, start_until

from ov_tuner.analyse.answer import answer_of
from ov_tuner.analyse.diagnostics import DiagnosticKind, diagnostics
from ov_tuner.devices.decisions import auto_precisions
from ov_tuner.devices.runtime import Runtime
from ov_tuner.errors import IncompatibleResultsError
from ov_tuner.schema import DeviceInfo, Ending, PointConfig, PointResult, Precision, Status
from ov_tuner.store.results import ResultStore, load_results
from ov_tuner.store.tables import RESULTS_SCHEMA_VERSION
from ov_tuner.workloads.sweep import run_sweep
from ov_tuner.workloads.sweep.notices import Notice, PrecisionMerged, PrecisionsChosen
from ov_tuner.workloads.sweep.present.sections.answer import answer_facts


class Recorder:
    """Collects progress events; can ask the sweep to stop after a number of points."""

    def __init__(self, stop: threading.Event | None = None, stop_after: int = 0) -> None:
        self.planned_counts: tuple[int, int] | None = None
        self.started: list[PointConfig] = []
        self.done: list[PointResult] = []
        self.notes: list[Notice] = []
        self._stop, self._stop_after = stop, stop_after

    def planned(self, to_measure: int, already_measured: int) -> None:
        self.planned_counts = (to_measure, already_measured)

    def note(self, notice: Notice) -> None:
        self.notes.append(notice)

    def starting(self, config: PointConfig) -> None:
        self.started.append(config)

    def finished(self, point: PointResult) -> None:
        self.done.append(point)
        if self._stop is not None and len(self.done) >= self._stop_after:
            self._stop.set()

    def dropped(self, count: int) -> None:
        pass


def test_one_compile_per_streams_value_serves_every_nireq(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    summary = run_sweep(quick_spec(tiny_model, out, streams=(1, 2), nireq=(1, 2, 4), batches=(1, 2)))
    assert (summary.measured, summary.failed, summary.compiles) == (12, 0, 4)
    with ResultStore(out) as store:
        assert store.compile_count() == 4
        points = store.points()
    assert len(points) == 12
    by_group: dict[object, set[int]] = {}
    for p in points:
        assert p.compile is not None and p.compile.key == p.config.compile_key
        by_group.setdefault(p.compile.key, set()).add(p.config.nireq)
    assert all(nireqs == {1, 2, 4} for nireqs in by_group.values())


def test_stored_points_keep_raw_latencies_and_read_back(swept_db: Path) -> None:
    results = load_results(swept_db)
    assert results.environment.model_name == "tiny_conv"
    assert len(results.environment.model_sha256) == 64
    assert results.devices["CPU"].full_name
    assert len(results.points) == 16
    for p in results.points:
        assert p.status is Status.OK and p.measurement is not None and p.compile is not None
        assert p.measurement.latencies_ms.size == p.measurement.requests
        assert p.compile.num_streams == p.config.streams
    fp32 = [p for p in results.points if p.config.precision is Precision.FP32]
    assert {p.compile.inference_precision for p in fp32 if p.compile} == {"f32"}


def test_interrupted_sweep_resumes_with_only_the_rest(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    spec = quick_spec(tiny_model, out, streams=(1, 2), nireq=(1, 2, 4))
    stop = threading.Event()
    first = Recorder(stop, stop_after=4)
    summary = run_sweep(spec, first, stop)
    assert summary.interrupted and summary.measured == 4
    assert len(load_results(out).points) == 4  # on disk, not only in memory

    second = Recorder()
    summary = run_sweep(spec, second)
    assert not summary.interrupted
    assert second.planned_counts == (2, 4)
    assert (summary.measured, summary.skipped) == (2, 4)
    assert {p.config for p in second.done}.isdisjoint({p.config for p in first.done})
    assert len(load_results(out).points) == 6


def test_failed_points_are_stored_and_the_sweep_goes_on(failing_inference_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    summary = run_sweep(quick_spec(failing_inference_model, out))
    assert (summary.measured, summary.failed, summary.compiles) == (0, 4, 0)
    points = load_results(out).points
    assert [p.status for p in points] == [Status.FAILED] * 4
    assert all(p.error and p.error.startswith("first inference:") and "reshape" in p.error for p in points)
    assert {d.kind for d in diagnostics(points)} == {DiagnosticKind.FAILED}
    # A rerun tries failed points again rather than skipping them.
    assert run_sweep(quick_spec(failing_inference_model, out)).failed == 4


def test_streams_the_device_lowers_are_read_back_and_flagged(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    run_sweep(quick_spec(tiny_model, out, streams=(1000,), nireq=(2,)))
    (point,) = load_results(out).points
    assert point.compile is not None
    assert point.compile.requested["NUM_STREAMS"] == "1000"
    assert point.compile.num_streams < 1000
    assert DiagnosticKind.STREAMS in {d.kind for d in diagnostics([point])}


def test_a_file_from_another_model_is_refused_and_kept(tiny_model: Path, swept_db: Path, tmp_path: Path,
                                                       batch_one_only_model: Path) -> None:
    out = tmp_path / "r.db"
    out.write_bytes(swept_db.read_bytes())
    with pytest.raises(IncompatibleResultsError, match=r"model_sha256.*tune into a new results file"):
        run_sweep(quick_spec(batch_one_only_model, out))
    assert len(load_results(out).points) == 16


def test_a_results_file_of_schema_v1_is_read_as_it_is_and_upgraded_when_written(swept_db: Path,
                                                                                 tmp_path: Path) -> None:
    out = tmp_path / "v1.db"
    out.write_bytes(swept_db.read_bytes())
    with sqlite3.connect(out) as db:
        as_schema_v1(db)
    before = out.read_bytes()
    points = load_results(out).points  # read-only: upgraded in memory, the file stays as it was
    assert out.read_bytes() == before
    assert len(points) == 16
    assert {(p.config.nireq, p.measurement.ended) for p in points if p.measurement} == {
        (1, Ending.SETTLED), (2, Ending.UNSETTLED)}
    assert {p.compile.weights_precision for p in points if p.compile} == {"unknown"}
    with ResultStore(out):  # opened for writing: upgraded in place
        pass
    with sqlite3.connect(out) as db:
        stored = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    assert stored == str(RESULTS_SCHEMA_VERSION)
    assert len(load_results(out).points) == 16


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "ov_tuner", *args]


def test_ctrl_c_keeps_measured_points_and_the_rerun_resumes(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    args = _cli("sweep", str(tiny_model), "--precision", "fp32", "--streams", "1,2", "--nireq", "1,2,4",
                "--seconds", "0.4", "--warmup", "0.05", "--search", "grid", "--no-baselines", "--out", str(out))
    proc = start_until(args[3:], out, 1)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    kept = count_rows(out)
    assert 1 <= kept < 6

    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"resuming: {kept} points already measured" in done.stderr
    assert f"{6 - kept} points measured, 0 failed, {kept} already stored" in done.stdout
    assert count_rows(out) == 6


def test_a_long_sweep_exits_cleanly(tiny_model: Path, tmp_path: Path) -> None:
    """Many compiles destroyed in one process once deadlocked at exit; the process must end by itself."""
    args = _cli("sweep", str(tiny_model), "--precision", "fp32,fp16,bf16", "--streams", "1,2", "--nireq", "1,2,4",
                "--batch", "1,2", "--seconds", "0.05", "--warmup", "0.02", "--search", "grid", "--no-confirm",
                "--out", str(tmp_path / "r.db"))
    done = subprocess.run(args, capture_output=True, text=True, timeout=180, env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    # 3 precisions x 2 batches x (2 streams x 3 nireq + the 2 hint baselines) + OpenVINO default at each batch
    assert "50 points measured, 0 failed, 0 already stored; 26 compiles" in done.stdout


class ListsBf16(Runtime):
    """The real runtime, with the CPU's OPTIMIZATION_CAPABILITIES as a CPU with native bf16 lists them (BF16), so
    that `--precision auto` sweeps bf16 on any host; every compile stays real and says what it ran."""

    def device_info(self, device: str) -> DeviceInfo:
        info = super().device_info(device)
        return replace(info, capabilities=tuple(dict.fromkeys((*info.capabilities, "BF16"))))


def test_auto_measures_a_precision_once_when_it_runs_fp32s_math(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    notes = Recorder()
    run_sweep(quick_spec(tiny_model, out, precisions=None), notes, runtime=ListsBf16())
    (chosen,) = [n for n in notes.notes if isinstance(n, PrecisionsChosen)]
    assert chosen.swept[:2] == (Precision.FP32, Precision.BF16)
    points = load_results(out).points
    (fp32,) = {p.compile.executed_precision for p in points if p.compile and p.config.precision is Precision.FP32}
    bf16 = [p for p in points if p.config.precision is Precision.BF16]
    merged = [n.merged for n in notes.notes if isinstance(n, PrecisionMerged)]
    if merged:  # this CPU has no native bf16: the bf16 hint ran fp32's math, so bf16 was measured once, as fp32
        assert [(m.precision, m.measured_as, m.ran) for m in merged] == [(Precision.BF16, Precision.FP32, fp32)]
        assert bf16 == []
    else:  # a CPU with native bf16 runs it as math of its own: swept
        assert bf16 and {p.compile.executed_precision for p in bf16 if p.compile} != {fp32}


class ListsNoBf16(Runtime):
    """The real runtime, with BF16 left out of the CPU's OPTIMIZATION_CAPABILITIES, as an AVX2-only CPU lists them."""

    def device_info(self, device: str) -> DeviceInfo:
        info = super().device_info(device)
        return replace(info, capabilities=tuple(c for c in info.capabilities if c != "BF16"))


@pytest.mark.parametrize("runtime", [Runtime, ListsBf16, ListsNoBf16], ids=["this-host", "lists-bf16", "no-bf16"])
def test_auto_sweeps_what_the_cpu_lists_less_what_runs_fp32s_math(runtime: type[Runtime], tiny_model: Path,
                                                                  tmp_path: Path) -> None:
    """What auto sweeps comes from the listing, and what is stored from what each compile read back: a precision
    whose compile ran fp32's math (a tiny model's bf16 on an AVX512-BF16 CPU does) is measured once, as fp32."""
    notes = Recorder()
    run_sweep(quick_spec(tiny_model, tmp_path / "r.db", precisions=None), notes, runtime=runtime())
    (chosen,) = [n for n in notes.notes if isinstance(n, PrecisionsChosen)]
    cpu = runtime().device_info("CPU")
    assert chosen.swept == auto_precisions(cpu)[0]
    assert (Precision.BF16 in chosen.swept) == ("BF16" in cpu.capabilities)
    points = load_results(tmp_path / "r.db").points
    (fp32,) = {p.compile.executed_precision for p in points if p.compile and p.config.precision is Precision.FP32}
    merged = [n.merged for n in notes.notes if isinstance(n, PrecisionMerged)]
    assert all(m.measured_as is Precision.FP32 and m.ran == fp32 for m in merged)
    assert {p.config.precision for p in points} == set(chosen.swept) - {m.precision for m in merged}
    stored = load_results(tmp_path / "r.db").merged  # kept, for every later output to say, and only that
    assert sorted(stored, key=repr) == sorted({*chosen.merged, *merged}, key=repr)


def test_precisions_named_leave_nothing_merged_to_say(tiny_model: Path, tmp_path: Path) -> None:
    """--precision fp32,int8 asks for no fp16 or bf16: the answer says nothing of what they would have run."""
    run_sweep(quick_spec(tiny_model, tmp_path / "r.db", precisions=(Precision.FP32,)))
    stored = load_results(tmp_path / "r.db")
    assert stored.merged == []
    rows = dict(answer_facts(answer_of(stored)).rows)
    assert "precision" not in rows
