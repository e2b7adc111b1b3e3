"""Stored points with known figures, for testing the pure analysis functions; and commands run in a fresh process,
as a user runs them, watched through their results file."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from ov_tuner.schema import (
    CompileInfo,
    Confirmation,
    Contender,
    Ending,
    Measurement,
    Mode,
    PointConfig,
    PointResult,
    Precision,
    RoundWindow,
    Status,
    Window,
)
from ov_tuner.stats.interval import fps_interval


def make_point(streams: int, nireq: int, fps: float, *, precision: Precision = Precision.FP32, batch: int = 1,
               device: str = "CPU", latency_ms: float | None = None, ran: str | None = None, noisy: bool = False,
               num_streams: int | None = None, mode: Mode = Mode.EXPLICIT, client_cpu_share: float = 0.2,
               ended: Ending = Ending.SETTLED) -> PointResult:
    """A measured point: `fps` over a 2 s window, every latency `latency_ms` (default nireq / fps)."""
    config = PointConfig(device, precision, batch, streams, nireq, mode)
    hint = precision.hint
    requested = {"PERFORMANCE_HINT": mode.performance_hint}
    if mode is not Mode.DEFAULT:
        requested["INFERENCE_PRECISION_HINT"] = hint
    if mode is Mode.EXPLICIT:
        requested["NUM_STREAMS"] = str(streams)
    ran_streams = num_streams or streams
    compile_info = CompileInfo(config.compile_key, requested, ran_streams, ran or hint, ran or hint,
                               nireq or ran_streams, (device,), 10.0, 1.0, "/models/m.xml")
    seconds = 2.0
    requests = round(fps * seconds / batch)
    latency = latency_ms if latency_ms is not None else 1000.0 * nireq / fps
    windows = tuple(Window(f, latency, requests // 3, seconds / 3)
                    for f in ((fps * 0.7, fps * 1.3, fps) if noisy else (fps, fps, fps)))
    measurement = Measurement(requests, requests * batch, seconds, np.full(requests, latency), windows,
                              ended=ended, client_cpu_share=client_cpu_share, fps_ci95=fps_interval(windows))
    return PointResult(config, Status.OK, compile_info, measurement)


def baseline(mode: Mode, streams: int, nireq: int, fps: float, **kwargs: object) -> PointResult:
    """A hint baseline: the configuration says 0 x 0, the compiled model says what OpenVINO chose."""
    point = make_point(0, 0, fps, mode=mode, num_streams=streams, **kwargs)  # type: ignore[arg-type]
    assert point.compile is not None
    compile_info = CompileInfo(point.compile.key, point.compile.requested, streams, point.compile.inference_precision,
                               point.compile.executed_precision, nireq, point.compile.execution_devices, 10.0, 1.0,
                               point.compile.ir_path)
    return PointResult(point.config, point.status, compile_info, point.measurement)


def failed_point(streams: int, nireq: int, precision: Precision = Precision.FP32) -> PointResult:
    return PointResult(PointConfig("CPU", precision, 1, streams, nireq), Status.FAILED, error="compile: boom")


V1_POINT_COLUMNS = ("id, device, precision, batch, streams, nireq, mode, input_mode, status, error, compile_id, "
                    "requests, frames, wall_s, fps, lat_median_ms, lat_p90_ms, lat_p99_ms, lat_min_ms, lat_max_ms, "
                    "lat_count, fps_cv, fps_ci95_low, fps_ci95_high, client_cpu_share, windows, latencies_ms, "
                    "created_at")


def as_schema_v1(db: sqlite3.Connection) -> None:
    """Turn a current results file into what schema v1 wrote: a settled flag instead of `ended`, and none of the
    later columns and tables."""
    db.execute(f"CREATE TABLE points_v1 AS SELECT {V1_POINT_COLUMNS}, (nireq = 1) AS settled FROM points")
    db.execute("DROP TABLE points")
    db.execute("ALTER TABLE points_v1 RENAME TO points")
    for column in ("weights_precision", "read_back", "settings", "from_cache", "native_log"):
        db.execute(f"ALTER TABLE compiles DROP COLUMN {column}")
    for table in ("confirmations", "confirm_contenders", "confirm_windows"):
        db.execute(f"DROP TABLE {table}")
    rewind(db, 1)


def rewind(db: sqlite3.Connection, version: int) -> None:
    """Make an open results file say it was written at results schema `version` (the caller changes its tables as
    that version had them): from before v22 a workload's own tables kept no version of their own."""
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
    db.execute("DELETE FROM meta WHERE key LIKE 'schema_version:%' OR key = 'tables_from'")


def count_rows(db: Path, table: str = "points") -> int:
    """Rows of `table` committed so far (0 before the file or the table exists), read without writing."""
    try:
        with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True) as conn:
            return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    except sqlite3.Error:
        return 0


def start_until(args: list[str], db: Path, rows: int, table: str = "points", prefix: list[str] | None = None,
                ) -> subprocess.Popen[str]:
    """Start `ov-tuner ARGS` in a fresh process and return once `db` holds `rows` rows of `table` (it goes on)."""
    proc = subprocess.Popen([*(prefix or []), sys.executable, "-m", "ov_tuner", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "COLUMNS": "250"})
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and count_rows(db, table) < rows:
        time.sleep(0.02)
    return proc


def ov_tuner(*args: str, prefix: list[str] | None = None, timeout: float = 180,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The command in a fresh process, as a user runs it (with `prefix`, e.g. without the power to override file
    permissions; with `env`, more environment variables)."""
    return subprocess.run([*(prefix or []), sys.executable, "-m", "ov_tuner", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "COLUMNS": "250", **(env or {})})


# How the sweep's busy-host notice starts (ov_tuner.workloads.sweep.present.words.notices).
BUSY_HOST = "the host is already busy: "


def assert_one_line(done: subprocess.CompletedProcess[str], *fragments: str) -> str:
    """Non-zero exit, no traceback, and exactly one line on stderr holding every fragment. The sweep's notice of a
    busy host (other processes took the CPUs while the model was prepared) may come before it: on a loaded test host
    that warning is true, and it is not the error."""
    assert done.returncode != 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = [ln for ln in done.stderr.splitlines() if ln.strip() and not ln.startswith(BUSY_HOST)]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def round_of(fps: dict[PointConfig, list[float]], p90_ms: dict[PointConfig, float]) -> Confirmation:
    """A confirmation whose contenders ran the given FPS, pass by pass, with every latency at the given p90."""
    configs = list(fps)
    contenders = tuple(Contender(c, c.streams or 2, c.nireq or 2) for c in configs)
    windows = []
    passes = len(next(iter(fps.values())))
    for r in range(passes):
        for i, c in enumerate(configs):
            windows.append(RoundWindow(r, r * len(configs) + i, i, Window(fps[c][r], p90_ms[c], 100, 0.25),
                                       np.full(100, p90_ms[c])))
    return Confirmation("CPU", contenders, tuple(windows), passes, 0.25)


# A figure in words: a number not glued to a letter (not fp32, p90, v2, top-1), whole (3.82 in 3.82x, a ratio, is read
# as 3.82, never as 3), with its unit.
FIGURE = re.compile(r"(?<![\w.\-])([-+]?\d+(?:\.\d+)?)(?=x\b|\.(?!\d)|[^\w.]|$)")


def _numbers(value: object) -> list[float]:
    """Every number in a JSON value, and the length of every list (a count the words give)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return []
    if isinstance(value, int | float):
        return [float(value)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    assert isinstance(value, list)
    return [float(len(value)), *(n for v in value for n in _numbers(v))]


def figures_missing(rows: list[tuple[str, str]], payload: dict[str, object]) -> list[str]:
    """The figures of the terminal's answer rows that the JSON answer holds under no reading: as it is, as a
    percentage (x 100) or as a gain (ratio - 1, x 100), to the places the words round it to."""
    numbers = [n for key, v in payload.items() if key != "says" for n in _numbers(v)]
    readings = [r for n in numbers for r in (n, n * 100, (n - 1) * 100)]
    missing = []
    for label, words in rows:
        for match in FIGURE.finditer(words.replace("..", " .. ")):
            text = match.group(1)
            places = len(text.split(".")[1]) if "." in text else 0
            if not any(abs(r - float(text)) <= 0.5 * 10 ** -places + 1e-9 for r in readings):
                missing.append(f"{label}: {text} in {words!r}")
    return missing
