"""Rows of the results file to records and back: configurations, compiles, points, arrays of latencies."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone

import numpy as np

from ov_tuner.schema import (
    CompileInfo,
    CompileKey,
    Ending,
    InputMode,
    Measurement,
    Mode,
    PointConfig,
    PointResult,
    Precision,
    Settings,
    Status,
    Window,
    counted,
)
from ov_tuner.stats.interval import fps_interval


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def compile_from_row(r: sqlite3.Row) -> CompileInfo:
    return CompileInfo(
        key=CompileKey(r["device"], Precision(r["precision"]), r["batch"], r["streams"], Mode(r["mode"]),
                       settings_of(r["settings"])),
        requested=json.loads(r["requested"]),
        num_streams=r["num_streams"],
        inference_precision=r["inference_precision"],
        executed_precision=r["executed_precision"],
        optimal_nireq=r["optimal_nireq"],
        execution_devices=tuple(json.loads(r["execution_devices"])),
        compile_ms=r["compile_ms"],
        first_infer_ms=r["first_infer_ms"],
        ir_path=r["ir_path"],
        weights_precision=r["weights_precision"],
        read_back=json.loads(r["read_back"]),
        from_cache=None if r["from_cache"] is None else bool(r["from_cache"]),
        native_log=r["native_log"],
    )


def config_from_row(r: sqlite3.Row) -> PointConfig:
    return PointConfig(device=r["device"], precision=Precision(r["precision"]), batch=r["batch"], streams=r["streams"],
                       nireq=r["nireq"], mode=Mode(r["mode"]), input_mode=InputMode(r["input_mode"]),
                       settings=settings_of(r["settings"]))


def config_values(c: PointConfig) -> tuple[object, ...]:
    """A configuration's columns, in the order every table that names one uses."""
    return (c.device, c.precision.value, c.batch, c.streams, c.nireq, c.mode.value, c.input_mode.value,
            json.dumps(c.settings))


def blob(values: np.ndarray) -> bytes:
    """Latencies as float32 bytes: half the size, and still finer than any clock they came from."""
    return np.asarray(values, dtype=np.float32).tobytes()


def array(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.float32).astype(np.float64)


def settings_of(text: str) -> Settings:
    return tuple((str(k), str(v)) for k, v in json.loads(text))


def point_from_row(r: sqlite3.Row, compile_info: CompileInfo | None) -> PointResult:
    measurement = None
    if r["status"] == Status.OK.value:
        windows = tuple(Window(**w) for w in json.loads(r["windows"]))
        measurement = Measurement(
            requests=r["requests"],
            frames=r["frames"],
            wall_s=r["wall_s"],
            latencies_ms=array(r["latencies_ms"]),
            windows=windows,
            ended=Ending(r["ended"]),
            client_cpu_share=r["client_cpu_share"],
            process_cpu_s=r["process_cpu_s"],
            fps_ci95=fps_interval(counted(windows)),  # recomputed: older files stored a low end below 0
        )
    return PointResult(config_from_row(r), Status(r["status"]), compile_info, measurement, r["error"])
