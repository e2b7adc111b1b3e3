"""Devices as the user writes them: the parser (pure), the one-line errors that name the device as written, sweeps
over virtual devices on the real CPU plugin, baselines with names of their own, and native output kept out of the
sweep's lines."""

from __future__ import annotations

import ctypes
import os
import re
import sqlite3
from pathlib import Path

import numpy as np
import openvino as ov
import pytest
from factories import assert_one_line, ov_tuner
from typer.testing import CliRunner

from ov_tuner.analyse.confirmed import confirmed_answer
from ov_tuner.cli import app
from ov_tuner.devices.native import native_output_kept
from ov_tuner.devices.strings import ReadAs, parse_devices
from ov_tuner.errors import BadInputError
from ov_tuner.schema import Confirmation, Contender, Mode, PointConfig, Precision, RoundWindow, Window
from ov_tuner.stats.headtohead import HeadToHead
from ov_tuner.store.results import load_results
from ov_tuner.workloads.sweep.present.words.answer import baseline_label

README = Path(__file__).parent.parent / "README.md"
DOCS = Path(__file__).parent.parent / "docs"


@pytest.mark.parametrize(("values", "devices"), [
    (["CPU"], ("CPU",)),
    (["cpu,gpu"], ("CPU", "GPU")),
    (["AUTO:GPU,CPU"], ("AUTO:GPU,CPU",)),
    (["MULTI:GPU,CPU"], ("MULTI:GPU,CPU",)),
    (["HETERO:GPU,CPU"], ("HETERO:GPU,CPU",)),
    (["BATCH:GPU(4)"], ("BATCH:GPU(4)",)),
    (["CPU,GPU,AUTO:GPU,CPU"], ("CPU", "GPU", "AUTO:GPU,CPU")),
    (["CPU", "GPU", "AUTO:GPU,CPU"], ("CPU", "GPU", "AUTO:GPU,CPU")),
    (["AUTO:GPU,CPU,MULTI:GPU.0,CPU"], ("AUTO:GPU,CPU", "MULTI:GPU.0,CPU")),
    (["GPU.0,GPU.1"], ("GPU.0", "GPU.1")),
    (["AUTO"], ("AUTO",)),
    (["BATCH:GPU(4),CPU"], ("BATCH:GPU(4)", "CPU")),
])
def test_a_device_string_means_what_openvino_means_by_it(values: list[str], devices: tuple[str, ...]) -> None:
    assert parse_devices(values).devices == devices


def test_ambiguous_lists_say_how_they_were_read() -> None:
    (mixed,) = parse_devices(["CPU,GPU,AUTO:GPU,CPU"]).readings
    assert mixed.why is ReadAs.MEMBERS and mixed.devices == ("CPU", "GPU", "AUTO:GPU,CPU")
    (batch,) = parse_devices(["BATCH:GPU(4),CPU"]).readings
    assert batch.why is ReadAs.BATCH_TAKES_ONE and batch.devices == ("BATCH:GPU(4)", "CPU")
    (twice,) = parse_devices(["CPU", "CPU,GPU"]).readings
    assert twice.why is ReadAs.TWICE and (twice.written, twice.devices) == ("CPU,GPU", ("CPU",))
    assert parse_devices(["AUTO:GPU,CPU"]).readings == ()  # a lone virtual device is plain


@pytest.mark.parametrize(("value", "says"), [
    ("AUTO:GPU,CPU,GPU", "AUTO:GPU,CPU,GPU names GPU twice; write AUTO:GPU,CPU"),
    ("AUTO:", "AUTO names no device after its colon"),
    ("CPU,,GPU", "an empty name between commas"),
    ("", "an empty value"),
])
def test_a_string_that_cannot_be_read_says_what_to_write(value: str, says: str) -> None:
    with pytest.raises(BadInputError, match=re.escape(says)):
        parse_devices([value])


def test_every_device_string_the_docs_show_is_read() -> None:
    """Each `--device X` in the README and docs/ parses, and a virtual device in it keeps its members."""
    texts = [README.read_text()] + [p.read_text() for p in sorted(DOCS.glob("*.md"))] if DOCS.is_dir() else \
        [README.read_text()]
    shown = {m for text in texts for m in re.findall(r"--device[ =]([A-Za-z0-9.:,()]+)", text)}
    assert shown, "the docs show no --device example"
    for value in shown:
        devices = parse_devices([value]).devices
        assert devices and all(d for d in devices), value
        for virtual in (v for v in value.split(",") if ":" in v):
            assert any(d.startswith(virtual.upper()) for d in devices), (value, devices)


def test_a_virtual_device_with_a_missing_member_names_it_as_written(tiny_model: Path, tmp_path: Path) -> None:
    missing = "GPU" if not any(d.startswith("GPU") for d in ov.Core().available_devices) else "NPU.7"
    done = ov_tuner("sweep", str(tiny_model), "--device", f"AUTO:{missing},CPU", "--out", str(tmp_path / "r.db"))
    line = assert_one_line(done, f"device AUTO:{missing},CPU needs {missing}, which is not present on this machine")
    assert f"(in AUTO:{missing})" not in line and not (tmp_path / "r.db").exists()


def test_a_sweep_over_two_virtual_devices_and_the_cpu_stores_all_three(tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.db"
    done = CliRunner().invoke(app, ["sweep", str(tiny_model), "--device", "CPU,MULTI:CPU", "--device", "HETERO:CPU",
                                    "--precision", "fp32", "--streams", "1", "--nireq", "1,2", "--seconds", "0.1",
                                    "--warmup", "0.02", "--no-accuracy", "--passes", "2", "--out", str(out)])
    assert done.exit_code == 0, done.stdout + done.stderr
    assert "--device CPU,MULTI:CPU read as CPU and MULTI:CPU" in done.stderr
    stored = load_results(out)
    assert {p.config.device for p in stored.points} == {"CPU", "MULTI:CPU", "HETERO:CPU"}
    assert set(stored.devices) == {"CPU", "MULTI:CPU", "HETERO:CPU"}
    shown = CliRunner().invoke(app, ["show", str(out)]).stdout
    assert re.search(r"THROUGHPUT, \d+ requests", shown)  # a virtual device's point in the user's terms
    assert "throughput: 0" not in shown.lower()


def test_two_baselines_never_share_a_name_in_the_answer() -> None:
    """On a GPU, THROUGHPUT is auto-batched and the same hint without auto-batching is measured beside it."""
    explicit = PointConfig("GPU", Precision.FP32, 1, 2, 4)
    baselines = [PointConfig("GPU", Precision.FP32, 1, 0, 0, mode) for mode in
                 (Mode.THROUGHPUT, Mode.THROUGHPUT_UNBATCHED, Mode.LATENCY, Mode.DEFAULT)]
    configs = [explicit, *baselines]
    fps = [130.0, 100.0, 101.0, 60.0, 99.0]
    windows = tuple(RoundWindow(r, r * len(configs) + i, i, Window(f * (1 + 0.01 * (r % 3)), 5.0, 100, 0.25),
                                np.full(100, 5.0)) for r in range(6) for i, f in enumerate(fps))
    head = HeadToHead.of(Confirmation("GPU", tuple(Contender(c, 2, 4) for c in configs), windows, 6, 0.25))
    assert head is not None
    answer = confirmed_answer(head)
    assert answer is not None and len(answer.gains) == 4
    names = [baseline_label(s.figures.contender) for s in answer.gains]
    assert len(set(names)) == 4, names
    assert names[0].startswith("OpenVINO default") and any("auto-batching off" in n for n in names)


def test_native_writes_during_a_capture_stay_out_of_the_terminal(capfd: pytest.CaptureFixture[str]) -> None:
    libc = ctypes.CDLL(None)
    with native_output_kept() as logged:
        libc.write(2, b"105 warnings generated.\n", 24)
        libc.write(1, b"from native code\n", 17)
        print("from Python, to the terminal", flush=True)
        text = logged()
    out, err = capfd.readouterr()
    assert "105 warnings generated." in text and "from native code" in text
    assert "warnings" not in out + err and "native" not in out + err
    assert "from Python, to the terminal" in out and "from Python" not in text


def test_what_a_compile_writes_natively_is_kept_with_it_not_printed(tiny_model: Path, tmp_path: Path) -> None:
    """OV_ENABLE_PROFILE_PASS makes OpenVINO's pass manager write to stdout from C++ on every compile."""
    out = tmp_path / "r.db"
    done = ov_tuner("sweep", str(tiny_model), "--precision", "fp32", "--streams", "1", "--nireq", "1", "--seconds",
                    "0.1", "--no-confirm", "--no-accuracy", "--out", str(out),
                    env={"OV_ENABLE_PROFILE_PASS": "1"})
    assert done.returncode == 0, done.stderr
    assert "PassManager" not in done.stdout + done.stderr
    logs = [p.compile.native_log for p in load_results(out).points if p.compile is not None]
    assert logs and all("PassManager" in log for log in logs)
    with sqlite3.connect(out) as db:
        assert db.execute("SELECT COUNT(*) FROM compiles WHERE native_log LIKE '%PassManager%'").fetchone()[0] >= 1
    shown = ov_tuner("show", str(out))
    assert "compiles wrote to stdout or stderr while compiling" in shown.stdout and "PassManager" in shown.stdout
    verbose = ov_tuner("--verbose", "show", str(out))
    assert verbose.stdout.count("PassManager") > shown.stdout.count("PassManager")
    assert os.environ.get("OV_ENABLE_PROFILE_PASS") is None  # the test's own process is untouched
