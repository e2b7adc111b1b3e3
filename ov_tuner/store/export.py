"""Results out: every point as CSV (one row a point, columns that `pandas.read_csv` reads with no arguments) or as
JSON (the same, with the environment, devices, accuracy and the confirmation round nested).

A point's configuration, its figures, how its measurement ended, what ran, its process CPU time and the
environment it was measured in are columns; with `with_latencies`, its windows' FPS and its raw per-request
latencies too (in CSV as ';'-separated numbers in one field).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict
from typing import Any

from ov_tuner.schema import PointResult, settings_text
from ov_tuner.store.results import StoredResults

ENVIRONMENT_COLUMNS = ("ov_version", "host", "node", "cpu_model", "cores", "model_name", "model_sha256")


def point_record(p: PointResult, results: StoredResults, with_latencies: bool = False) -> dict[str, Any]:
    """One point as flat, named values (None where the point has none)."""
    c, m, info = p.config, p.measurement, p.compile
    accuracy = next((a for a in results.accuracies
                     if (a.device, a.precision, a.batch) == (c.device, c.precision, c.batch)), None)
    record: dict[str, Any] = {
        "device": c.device, "precision": c.precision.value, "batch": c.batch, "streams": c.streams, "nireq": c.nireq,
        "mode": c.mode.value, "configuration": c.short_label(p.streams, p.nireq), "input_mode": c.input_mode.value,
        "settings": settings_text(c.settings),
        "status": p.status.value, "error": (p.error or "").splitlines()[0] if p.error else None,
        "ran": info.ran if info else None, "streams_ran": p.streams if info else None,
        "nireq_ran": p.nireq if info else None,
    }
    lat = m.latency if m is not None else None
    record.update({
        "fps": m.fps if m else None, "fps_ci95_low": m.fps_ci95[0] if m and m.fps_ci95 else None,
        "fps_ci95_high": m.fps_ci95[1] if m and m.fps_ci95 else None, "fps_cv": m.fps_cv if m else None,
        "latency_median_ms": lat.median if lat else None, "latency_p90_ms": lat.p90 if lat else None,
        "latency_p99_ms": lat.p99 if lat else None, "latency_min_ms": lat.min if lat else None,
        "latency_max_ms": lat.max if lat else None, "requests": m.requests if m else None,
        "wall_s": m.wall_s if m else None, "ended": m.ended.value if m else None,
        "windows": len(m.windows) if m else None, "disturbed_windows": m.disturbed_windows if m else None,
        "cpu_ms_per_request": m.cpu_ms_per_request if m else None,
        "compile_ms": info.compile_ms if info else None, "first_inference_ms": info.first_infer_ms if info else None,
        "from_cache": info.from_cache if info else None,
        "accuracy_cosine": accuracy.cosine if accuracy else None, "accuracy_top1": accuracy.top1 if accuracy else None,
    })
    record.update({k: getattr(results.environment, k) for k in ENVIRONMENT_COLUMNS})
    if with_latencies:
        record["window_fps"] = [w.fps for w in m.windows] if m else []
        record["latencies_ms"] = m.latencies_ms.tolist() if m else []
    return record


def to_csv(results: StoredResults, with_latencies: bool = False) -> str:
    records = [point_record(p, results, with_latencies) for p in results.points]
    buffer = io.StringIO()
    if not records:
        return ""
    writer = csv.DictWriter(buffer, fieldnames=list(records[0]), lineterminator="\n")
    writer.writeheader()
    for record in records:
        writer.writerow({k: ";".join(f"{x:.6g}" for x in v) if isinstance(v, list) else v
                         for k, v in record.items()})
    return buffer.getvalue()


def to_json(results: StoredResults, with_latencies: bool = False) -> str:
    points = []
    for p in results.points:
        record = point_record(p, results, with_latencies)
        for key in ENVIRONMENT_COLUMNS:  # nested once at the top instead
            record.pop(key)
        points.append(record)
    document = {
        "environment": asdict(results.environment),
        "devices": [asdict(d) for d in results.devices.values()],
        "points": points,
        "accuracy": [asdict(a) for a in results.accuracies],
        "confirmation": _confirmation(results),
    }
    return json.dumps(document, indent=1, default=str) + "\n"


def _confirmation(results: StoredResults) -> dict[str, Any] | None:
    if not results.confirmations:
        return None
    c = results.confirmations[-1]
    return {"passes": c.passes, "window_s": c.window_s,
            "contenders": [{**{k: str(v) for k, v in asdict(x.config).items()}, "streams_ran": x.streams,
                            "nireq_ran": x.nireq} for x in c.contenders],
            "windows": [{"pass": w.pass_number, "visit": w.visit, "contender": w.contender, "fps": w.window.fps}
                        for w in c.windows]}
