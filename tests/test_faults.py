"""Every output path and every fault ends in one clear line, a non-zero exit, and nothing lost.

The commands run as a user would run them: in a fresh process. Permission cases run without the power to
override file permissions (root ignores them; CI runs as root): as root, through `setpriv` with
CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH dropped; as anyone else, as they are. A full disk is a tiny tmpfs,
mounted where the test may mount one. Where neither can be had, the test is skipped with the reason.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops
import pytest
from factories import as_schema_v1, assert_one_line, ov_tuner, start_until
from typer.testing import CliRunner

from ov_tuner.cli import app
from ov_tuner.deployable import SWEEP_WRITER

NO_DAC = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search"]


def unprivileged() -> list[str]:
    """The prefix that runs a command without the power to ignore file permissions, or a skip saying why not."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: file permissions cannot be made to apply (install util-linux)")
    probe = subprocess.run([*NO_DAC, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"setpriv cannot drop CAP_DAC_OVERRIDE here: {probe.stderr.strip()}")
    return NO_DAC


def in_process(*args: str) -> subprocess.CompletedProcess[str]:
    """The command through Typer's test runner: the same code, without a new interpreter's start-up."""
    result = CliRunner().invoke(app, list(args))
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def rows(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT device, precision, batch, streams, nireq, status, fps FROM points "
                            "ORDER BY id").fetchall()


QUICK = ("--precision", "fp32", "--streams", "1", "--nireq", "1,2", "--seconds", "0.2", "--warmup", "0.02",
         "--search", "grid", "--no-baselines", "--no-confirm")


@pytest.fixture
def stored(swept_db: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "kept" / "results.db"
    copy.parent.mkdir()
    copy.write_bytes(swept_db.read_bytes())
    return copy


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "existing.db").write_bytes(b"")
    folder.chmod(0o555)
    yield folder
    folder.chmod(0o755)


# -- where output goes ----------------------------------------------------------------------------------------


def writers(model: Path, db: Path) -> dict[str, tuple[list[str], str]]:
    """Every command that writes, with the arguments around its destination and the flag that names it."""
    return {
        "sweep --out": ([*("sweep", str(model)), *QUICK, "--out"], "file"),
        "coldstart --out": (["coldstart", str(model), "--repeats", "1", "--out"], "file"),
        "profile --out": (["profile", str(model), "--seconds", "0.1", "--out"], "file"),
        "recommend --config-out": (["recommend", str(db), "--config-out"], "file"),
        "plot --out-dir": (["plot", str(db), "--out-dir"], "folder"),
        "report --out-dir": (["report", str(db), "--out-dir"], "folder"),
        "profile --out-dir": (["profile", str(model), "--seconds", "0.1", "--out", str(db.parent / "p.db"),
                               "--out-dir"], "folder"),
        "zoo build --out-dir": (["zoo", "build", "tiny_conv", "--out-dir"], "folder"),
        "export -o": (["export", str(db), "-o"], "file"),
        "compare --out-dir": (["compare", str(db), str(db), "--out-dir"], "folder"),
        "capacity --out": (["capacity", str(model), *ONE_CAMERA, "--out"], "file"),
        "capacity --out-dir": (["capacity", str(model), *ONE_CAMERA, "--out", str(db.parent / "c.db"),
                                "--out-dir"], "folder"),
        "soak --out": (["soak", str(model), "--streams", "1", "--nireq", "1", "--seconds", "0.6", "--window", "0.2",
                        "--out"], "file"),
    }


ONE_CAMERA = ("--streams", "1", "--nireq", "1", "--cameras", "1", "--seconds", "0.5")


@pytest.mark.parametrize("command", ["sweep --out", "coldstart --out", "profile --out", "recommend --config-out",
                                     "plot --out-dir", "report --out-dir", "profile --out-dir", "zoo build --out-dir",
                                     "export -o", "compare --out-dir", "capacity --out", "capacity --out-dir",
                                     "soak --out"])
def test_every_writer_checks_its_destination_first(command: str, tiny_model: Path, stored: Path,
                                                   tmp_path: Path) -> None:
    args, kind = writers(tiny_model, stored)[command]
    before = digest(stored)
    a_file = tmp_path / "a_file.txt"
    a_file.write_text("not a folder\n")
    a_folder = tmp_path / "a_folder"
    a_folder.mkdir()
    if kind == "file":
        assert_one_line(in_process(*args, str(tmp_path / "no" / "such" / "out.db")), "no/such", "does not exist")
        assert_one_line(in_process(*args, str(a_folder)), str(a_folder), "is a folder")
        assert_one_line(in_process(*args, str(a_file / "out.db")), str(a_file), "is a file, not a folder")
    else:
        assert_one_line(in_process(*args, str(a_file)), str(a_file), "is a file")
        assert_one_line(in_process(*args, str(a_file / "deeper")), str(a_file / "deeper"), "cannot create folder")
    assert a_file.read_text() == "not a folder\n"
    assert digest(stored) == before


@pytest.mark.parametrize("command", ["sweep --out", "coldstart --out", "recommend --config-out", "plot --out-dir",
                                     "report --out-dir", "profile --out-dir", "zoo build --out-dir", "export -o",
                                     "compare --out-dir", "capacity --out", "soak --out"])
def test_read_only_destinations_are_refused_before_any_work(command: str, tiny_model: Path, stored: Path,
                                                            read_only_dir: Path) -> None:
    prefix = unprivileged()
    args, kind = writers(tiny_model, stored)[command]
    destination = read_only_dir / ("new.db" if kind == "file" else "figures")
    start = time.perf_counter()
    line = assert_one_line(ov_tuner(*args, str(destination), prefix=prefix), str(read_only_dir), "read-only")
    assert time.perf_counter() - start < 30, "refused only after working"
    assert "not an ov-tuner results file" not in line
    if kind == "folder":  # the read-only folder itself
        assert_one_line(ov_tuner(*args, str(read_only_dir), prefix=prefix), str(read_only_dir), "is read-only")
    else:  # an existing read-only file
        ro_file = stored.parent / "ro.db"
        ro_file.write_bytes(stored.read_bytes())
        ro_file.chmod(0o444)
        try:
            assert_one_line(ov_tuner(*args, str(ro_file), prefix=prefix), str(ro_file), "is read-only")
        finally:
            ro_file.chmod(0o644)


# -- read-only commands stay read-only ------------------------------------------------------------------------


def test_read_only_commands_never_change_a_results_file(stored: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    old = tmp_path / "v1.db"
    old.write_bytes(stored.read_bytes())
    with sqlite3.connect(old) as db:
        as_schema_v1(db)
    for results in (stored, empty, old):
        before = digest(results)
        for args in (["show"], ["plot", "--out-dir", str(tmp_path / "plots")],
                     ["report", "--out-dir", str(tmp_path / "report")],
                     ["recommend"], ["recommend", "--json"], ["export"], ["export", "--format", "json"]):
            done = in_process(args[0], str(results), *args[1:])
            if results is empty:
                assert_one_line(done, "holds no results yet; write it first with a workload's command: ")
                assert f"`ov-tuner sweep ... --out {empty}`" in done.stderr
            else:
                assert done.returncode == 0, done.stderr
            assert digest(results) == before, (args, results.name)


# -- faults mid-run --------------------------------------------------------------------------------------------


LONG = ("--precision", "fp32", "--streams", "1,2", "--nireq", "1,2,4,8", "--seconds", "0.6", "--warmup", "0.02",
        "--search", "grid", "--no-baselines", "--no-confirm")


def test_a_disk_that_fills_mid_sweep_stops_it_with_one_line_and_keeps_every_point(tiny_model: Path,
                                                                                   tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)], capture_output=True,
                             text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs to fill here: {mounted.stderr.strip() or 'mount failed'}")
    try:
        db = disk / "r.db"
        args = ["sweep", str(tiny_model), *LONG, "--out", str(db)]
        proc = start_until(args, db, 1)
        filler = disk / "filler"
        with filler.open("wb", buffering=0) as f:  # take every byte left (unbuffered: nothing left to flush)
            try:
                while True:
                    f.write(b"\0" * 65536)
            except OSError:
                pass
        _, stderr = proc.communicate(timeout=120)
        kept = rows(db)
        done = subprocess.CompletedProcess(args, proc.returncode, "", stderr)
        assert_one_line(done, str(db), "the disk is full", "the last point stored is CPU fp32 batch 1",
                        "run the same command to resume")
        assert 1 <= len(kept) < 8
        filler.unlink()
        again = ov_tuner(*args)
        assert again.returncode == 0, again.stderr
        assert f"{len(kept)} already stored" in again.stdout
        assert rows(db)[: len(kept)] == kept and len(rows(db)) == 8
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def test_a_results_folder_made_read_only_mid_sweep_stops_it_and_a_rerun_resumes(tiny_model: Path,
                                                                                 tmp_path: Path) -> None:
    prefix = unprivileged()
    folder = tmp_path / "results"
    folder.mkdir()
    db = folder / "r.db"
    args = ["sweep", str(tiny_model), *LONG, "--out", str(db)]
    proc = start_until(args, db, 1, prefix=prefix)
    folder.chmod(0o555)  # SQLite writes its journal beside the file: the next point cannot be committed
    try:
        _, stderr = proc.communicate(timeout=120)
        assert_one_line(subprocess.CompletedProcess(args, proc.returncode, "", stderr), str(db),
                        "became read-only", "the last point stored is CPU fp32 batch 1")
        kept = rows(db)
        assert 1 <= len(kept) < 8
    finally:
        folder.chmod(0o755)
    again = ov_tuner(*args, prefix=prefix)
    assert again.returncode == 0, again.stderr
    assert rows(db)[: len(kept)] == kept and len(rows(db)) == 8


# -- one line, even when OpenVINO writes ten -------------------------------------------------------------------


@pytest.fixture(scope="module")
def uncompilable_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Reads fine, never compiles on CPU: a string input converted to f32 (OpenVINO explains in a dozen lines)."""
    text = ops.parameter([-1, 1], ov.Type.string, name="text")
    numbers = ops.parameter([-1, 4], ov.Type.f32, name="numbers")
    out = ops.add(ops.convert(text, ov.Type.f32), numbers)
    path = tmp_path_factory.mktemp("uncompilable") / "strings.xml"
    ov.save_model(ov.Model([out], [text, numbers], "strings"), path)
    return path


def test_a_precision_that_never_compiles_is_said_once_and_skipped(uncompilable_model: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    done = ov_tuner("sweep", str(uncompilable_model), "--precision", "fp32,fp16", "--streams", "1,2",
                    "--nireq", "1,2", "--seconds", "0.1", "--search", "grid", "--out", str(db))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "Exception from src" not in done.stderr
    for precision in ("fp32", "fp16"):
        said = [ln for ln in done.stderr.splitlines() if f"CPU {precision}: its first compile failed" in ln]
        assert len(said) == 1, done.stderr
        assert "cpu_convert can't convert" not in said[0] or len(said[0]) < 400
    assert "0 points measured, 3 failed" in done.stdout and "left out" in done.stdout
    # one stored failure per precision and OpenVINO default's own, the rest skipped
    assert [r[5] for r in rows(db)] == ["failed"] * 3
    verbose = ov_tuner("--verbose", "sweep", str(uncompilable_model), "--precision", "fp32", "--streams", "1",
                       "--nireq", "1", "--seconds", "0.1", "--out", str(tmp_path / "v.db"))
    assert "Exception from src" in verbose.stderr  # the whole message, on request


def test_a_model_openvino_cannot_read_is_one_line_and_verbose_has_the_rest(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.onnx"
    bogus.write_text("garbage")
    line = assert_one_line(ov_tuner("sweep", str(bogus), "--out", str(tmp_path / "r.db")),
                           "is not a model OpenVINO can read or convert")  # a fresh process: OpenVINO's own stderr
    assert "Model Conversion arguments" not in line
    verbose = ov_tuner("--verbose", "sweep", str(bogus), "--out", str(tmp_path / "r.db"))
    assert verbose.returncode != 0 and "Traceback" not in verbose.stderr
    assert len([ln for ln in verbose.stderr.splitlines() if ln.strip()]) > 1


# -- shapes and layouts -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dynamic_nchw(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Batch, height and width dynamic, with a layout that says N is the first axis."""
    x = ops.parameter([-1, 8, -1, -1], ov.Type.f32, name="image")
    x.set_layout(ov.Layout("NCHW"))
    y = ops.convolution(x, ops.constant(np.ones((4, 8, 3, 3), dtype=np.float32)), [1, 1], [1, 1], [1, 1], [1, 1])
    path = tmp_path_factory.mktemp("dynamic") / "dynamic_nchw.xml"
    ov.save_model(ov.Model([y], [x], "dynamic_nchw"), path)
    return path


def test_shape_and_layout_mistakes_each_get_one_line(dynamic_nchw: Path, tiny_model: Path, tmp_path: Path) -> None:
    out = str(tmp_path / "r.db")
    base = ("--precision", "fp32", "--streams", "1", "--nireq", "1", "--seconds", "0.1", "--out", out)
    assert_one_line(in_process("sweep", str(tiny_model), "--shape", "images[1,8,16,16]", *base),
                    "--shape: the model has no input named images; its inputs are")
    assert_one_line(in_process("sweep", str(dynamic_nchw), "--shape", "image[1,8,16]", *base),
                    "has 3 dimensions, but input image has 4")
    # the example puts the batch where the layout says it is, not 224
    assert_one_line(in_process("sweep", str(dynamic_nchw), *base), "image[1,8,?,?] has dynamic dimensions",
                    "--shape image[1,8,224,224]")
    assert_one_line(in_process("sweep", str(dynamic_nchw), "--layout", "C???", "--shape", "[1,8,16,16]",
                             "--batch", "2", *base), "input image has layout", "with no batch dimension (N)")
    assert_one_line(in_process("sweep", str(dynamic_nchw), "--layout", "C???", *base), "has no N")
    assert not Path(out).exists()


def test_two_processes_claiming_a_new_results_file_at_once_keep_the_first_claim(tmp_path: Path) -> None:
    """The race of two sweeps started together into one new file, made certain: the second looks, finds no claim,
    and the first claims before the second writes. The second is held to the first's environment and inputs, not
    ended by a traceback (IntegrityError on meta.key, 1 try in 10)."""
    from ov_tuner.errors import IncompatibleResultsError
    from ov_tuner.schema import Environment, ModelInputs
    from ov_tuner.store.results import ResultStore

    class Late(ResultStore):
        """Reads nothing stored the first time it looks, as a process that looked just before the other wrote."""

        def __init__(self, path: Path) -> None:
            super().__init__(path)
            self.looked: set[str] = set()

        def environment(self) -> Environment | None:
            return None if self._first("environment") else super().environment()

        def inputs(self) -> ModelInputs | None:
            return None if self._first("inputs") else super().inputs()

        def _first(self, what: str) -> bool:
            first = what not in self.looked
            self.looked.add(what)
            return first

    db = tmp_path / "r.db"
    env = Environment("2026.4.1-x", "0.1.0", "host", "CPU", 2, "3.11.7", "/m/net.xml", "0" * 64, "net")
    with ResultStore(db) as first, Late(db) as second:
        first.claim(env, SWEEP_WRITER)
        first.record_inputs(ModelInputs({}, {}))
        second.claim(env, SWEEP_WRITER)
        second.record_inputs(ModelInputs({}, {}))
        assert second.environment() == env and second.inputs() == ModelInputs({}, {})
    with Late(db) as second, pytest.raises(IncompatibleResultsError, match="measured elsewhere"):
        second.claim(dataclasses.replace(env, host="other"), SWEEP_WRITER)  # measured elsewhere: one line, as before
