"""A workload from outside ov-tuner (tests/plugin_workload: its own package, `ovt-probe`, registered through the
`ov_tuner.workloads` entry point) installed as pip installs one, then run end to end through ov-tuner's command line:
its own command, its results file, and show, recommend (every form it declares, the Python one run), report, plot,
export and compare, each dispatched through the registry. Nothing in ov_tuner/ names it."""

from __future__ import annotations

import json
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from factories import assert_one_line, ov_tuner, rewind

from ov_tuner.fleet.local import LocalCluster

PACKAGE = Path(__file__).resolve().parent / "plugin_workload"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a Python with ovt-probe installed (into a folder of its own: the test's venv is left as it
    is), from a copy of its source (the build writes beside it)."""
    folder = tmp_path_factory.mktemp("plugin")
    source, target = folder / "source", folder / "site"
    shutil.copytree(PACKAGE, source)
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                           "--no-build-isolation", "--target", str(target), str(source)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (target / "ovt_probe" / "registration.py").is_file()
    return {"PYTHONPATH": str(target)}


@pytest.fixture(scope="module")
def probed(installed: dict[str, str], tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two results files of the probe's command on the tiny model."""
    folder = tmp_path_factory.mktemp("probed")
    files = (folder / "first.db", folder / "second.db")
    for db in files:
        done = ov_tuner("probe", str(tiny_model), "--out", str(db), "--threads", "1,2", "--requests", "12",
                        env=installed)
        assert done.returncode == 0, done.stderr
        assert f"wrote {db}" in done.stdout
    return files


def test_its_command_is_on_the_command_line(installed: dict[str, str]) -> None:
    assert "probe" in ov_tuner("--help", env=installed).stdout
    assert "probe" not in ov_tuner("--help").stdout  # without the package, no such command


def test_its_results_file_names_it_and_keeps_every_latency(probed: tuple[Path, Path]) -> None:
    """The file holds every results file's table (meta) and the probe's own, none of the sweep's."""
    with sqlite3.connect(probed[0]) as db:
        writer = json.loads(db.execute("SELECT value FROM meta WHERE key = 'workload'").fetchone()[0])
        rows = db.execute("SELECT threads, first, COUNT(*) FROM probe_latencies GROUP BY threads, first").fetchall()
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert writer == {"name": "probe", "whose": "a probe's"}
    assert tables == {"meta", "probe_latencies"}
    assert sorted(rows) == [(1, 0, 12), (1, 1, 1), (2, 0, 12), (2, 1, 1)]  # the first apart, the warm-up left out


def test_show_recommend_and_every_form(installed: dict[str, str], probed: tuple[Path, Path], tmp_path: Path) -> None:
    db = probed[0]
    shown = ov_tuner("show", str(db), env=installed)
    assert shown.returncode == 0 and "measured" in shown.stdout and "first ms" in shown.stdout
    said = ov_tuner("recommend", str(db), env=installed)
    assert said.returncode == 0 and "INFERENCE_NUM_THREADS" in said.stdout
    answer = json.loads(ov_tuner("recommend", str(db), "--json", env=installed).stdout)
    assert answer["kind"] == "probe" and answer["threads"] in (1, 2)
    assert f"INFERENCE_NUM_THREADS {answer['threads']}" in said.stdout
    form = tmp_path / "deploy.py"
    assert ov_tuner("recommend", str(db), "--format", "python", "-o", str(form), env=installed).returncode == 0
    ran = subprocess.run([sys.executable, str(form)], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["INFERENCE_NUM_THREADS", str(answer["threads"])]  # what the probe measured
    assert_one_line(ov_tuner("recommend", str(db), "--format", "ovms", env=installed),
                    "a probe's answer comes as --format python, json or properties, not ovms")


def test_a_form_of_its_own_is_offered_and_compiles_as_it_measured(installed: dict[str, str], probed: tuple[Path, Path],
                                                                  tiny_model: Path, swept_db: Path,
                                                                  tmp_path: Path) -> None:
    """The probe adds a form (`properties`, API 1.1): `recommend --help` offers it, and OpenVINO compiles with what it
    writes to the thread count the probe measured best; another workload's file refuses it in one line."""
    helped = ov_tuner("recommend", "--help", env={**installed, "COLUMNS": "250"})
    assert "|json|properties>" in helped.stdout and "own: properties." in helped.stdout
    db = probed[0]
    best = json.loads(ov_tuner("recommend", str(db), "--json", env=installed).stdout)["threads"]
    written = tmp_path / "properties.json"
    assert ov_tuner("recommend", str(db), "--format", "properties", "-o", str(written), env=installed).returncode == 0
    check = ("import json, sys; import openvino as ov; compiled = ov.Core().compile_model(sys.argv[1], 'CPU', "
             "json.load(open(sys.argv[2]))); print(compiled.get_property('INFERENCE_NUM_THREADS'))")
    ran = subprocess.run([sys.executable, "-c", check, str(tiny_model), str(written)], capture_output=True, text=True,
                         timeout=120)
    assert ran.returncode == 0 and ran.stdout.split() == [str(best)], ran.stderr
    assert_one_line(ov_tuner("recommend", str(swept_db), "--format", "properties", env=installed),
                    "a sweep's answer comes as --format python, benchmark_app, load_config, ovms, dlstreamer, "
                    "kubernetes, ray or json, not properties")


def test_report_plot_export_and_compare(installed: dict[str, str], probed: tuple[Path, Path],
                                        tmp_path: Path) -> None:
    first, second = probed
    assert ov_tuner("report", str(first), "--out-dir", str(tmp_path / "report"), env=installed).returncode == 0
    assert "INFERENCE_NUM_THREADS" in (tmp_path / "report" / "report.md").read_text()
    assert (tmp_path / "report" / "report.html").is_file() and (tmp_path / "report" / "probe.png").is_file()
    plotted = ov_tuner("plot", str(first), "--out-dir", str(tmp_path / "plots"), "--format", "svg", env=installed)
    assert plotted.returncode == 0 and (tmp_path / "plots" / "probe.svg").is_file()
    csv = ov_tuner("export", str(first), env=installed).stdout.splitlines()
    assert csv[0] == "threads,median_ms,p90_ms,first_ms" and [line.split(",")[0] for line in csv[1:]] == ["1", "2"]
    exported = json.loads(ov_tuner("export", str(first), "--format", "json", env=installed).stdout)
    assert [len(t["latencies_ms"]) for t in exported] == [12, 12]
    compared = ov_tuner("compare", str(first), str(second), env=installed)
    assert compared.returncode == 0 and first.name in compared.stdout and second.name in compared.stdout


def test_its_file_from_before_its_tables_had_a_version_reads_as_it_was(
        installed: dict[str, str], probed: tuple[Path, Path], tmp_path: Path) -> None:
    """A probe's file of results schema v21, when a plug-in's tables kept no version: they are taken at their own
    version (1), not at the results schema's."""
    older = tmp_path / "v21.db"
    older.write_bytes(probed[0].read_bytes())
    with sqlite3.connect(older) as db:
        rewind(db, 21)
    shown, now = ov_tuner("show", str(older), env=installed), ov_tuner("show", str(probed[0]), env=installed)
    assert shown.returncode == 0 and shown.stdout == now.stdout.replace(str(probed[0]), str(older))


def test_fleet_runs_it_on_every_host_it_is_installed_on(installed: dict[str, str], tiny_model: Path,
                                                       tmp_path: Path) -> None:
    """`fleet probe` on a Ray cluster whose nodes have the package (this machine, two nodes): the probe's own command
    on each, one file a host naming the probe and the node, then the probe's own `compare` over them."""
    cluster = LocalCluster(Path(tempfile.mkdtemp(prefix="ovt-ray-", dir="/tmp")), env=installed)  # short socket paths
    try:
        cluster.start("head")
        cluster.start("second")
        done = ov_tuner("fleet", "probe", str(tiny_model), "--address", cluster.address, "--out-dir",
                        str(tmp_path), "--threads", "1,2", "--requests", "12", env=installed, timeout=300)
    finally:
        cluster.stop_all()
        shutil.rmtree(cluster.folder, ignore_errors=True)
    assert done.returncode == 0, done.stdout + done.stderr
    host = socket.gethostname()
    for node in ("head", "second"):
        db = tmp_path / f"{host}-{node}.db"
        with sqlite3.connect(db) as found:
            meta = dict(found.execute("SELECT key, value FROM meta").fetchall())
            timed = found.execute("SELECT COUNT(*) FROM probe_latencies WHERE first = 0").fetchone()[0]
        assert json.loads(meta["workload"])["name"] == "probe" and json.loads(meta["environment"])["node"] == node
        assert timed == 24  # 12 timed requests at each of 1 and 2 threads
        assert f"{host}-{node} ({node}): done; results in {db}" in done.stdout
    compared = ov_tuner("compare", *(str(tmp_path / f"{host}-{node}.db") for node in ("head", "second")),
                        env=installed)
    assert compared.returncode == 0 and compared.stdout.strip() in done.stdout  # the probe's comparison, as printed


def test_files_of_other_workloads_are_refused_both_ways(installed: dict[str, str], probed: tuple[Path, Path],
                                                        swept_db: Path, tiny_model: Path, tmp_path: Path) -> None:
    copy = tmp_path / "swept.db"
    copy.write_bytes(swept_db.read_bytes())
    assert_one_line(ov_tuner("probe", str(tiny_model), "--out", str(copy), env=installed),
                    "is a sweep's results file; tune into a new --out file")
    assert_one_line(ov_tuner("compare", str(probed[0]), str(copy), env=installed),
                    "compare reads files of one kind")
    assert_one_line(ov_tuner("show", str(probed[0])),  # the package uninstalled
                    "is a probe's results file, written by the workload probe, which is not installed here")


def test_a_workload_that_does_not_load_is_one_warning_and_the_others_run(tmp_path: Path) -> None:
    """An installed package whose entry point names a module that is not there (its metadata written as an installer
    writes it): every command warns of it in one line, and ov-tuner's own workloads go on."""
    info = tmp_path / "ovt_broken-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ovt-broken\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[ov_tuner.workloads]\nbroken = ovt_missing.registration:BROKEN\n")
    done = ov_tuner("--help", env={"PYTHONPATH": str(tmp_path)})
    assert done.returncode == 0 and "sweep" in done.stdout and "broken" not in done.stdout
    assert [line for line in done.stderr.splitlines() if line.strip()] == [
        "warning: the workload broken (ovt_missing.registration:BROKEN) did not load (ModuleNotFoundError: No module "
        "named 'ovt_missing'); fix or uninstall the package that declares it"]
