"""What runs in each fresh process of a cold start: read the IR, compile it (with or without CACHE_DIR) and run the
first inference, timed, and the steady median after warm-up; and how the cold start's workload spawns one."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from ov_tuner.devices.runtime import Runtime
from ov_tuner.errors import OvTunerError
from ov_tuner.measure.engine import measure
from ov_tuner.schema import CompileKey, Precision, StopRule

# The steady median comes from this long a closed loop of one request, after this much warm-up.
STEADY_S, STEADY_WARMUP_S = 0.5, 0.2


def spawn(probe: dict[str, object]) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-m", "ov_tuner.workloads.sweep.coldstart.probe", json.dumps(probe)],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise OvTunerError(f"the cold-start probe failed: {last}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _probe(probe: dict) -> dict[str, float]:
    """Runs in the fresh process: time reading, compiling and the first inference."""
    runtime = Runtime()
    precision = Precision(probe["precision"])
    start = time.perf_counter_ns()
    model = runtime.read_ir(Path(probe["ir"]))
    read_ms = (time.perf_counter_ns() - start) / 1e6
    runtime.reshape(model, probe["batch"], probe["shapes"])
    key = CompileKey(probe["device"], precision, probe["batch"], probe["streams"])
    extra = {"CACHE_DIR": probe["cache_dir"]} if "cache_dir" in probe else None
    compiled, info = runtime.compile(model, key, runtime.device_info(key.device), extra=extra)
    result = {"read_ms": read_ms, "compile_ms": info.compile_ms, "first_infer_ms": info.first_infer_ms}
    if probe.get("steady"):
        steady = measure(compiled, 1, key.batch, StopRule(window_s=STEADY_S, fixed_s=STEADY_S), STEADY_WARMUP_S)
        result["steady_median_ms"] = steady.latency.median
    del compiled
    return result


if __name__ == "__main__":
    print(json.dumps(_probe(json.loads(sys.argv[1]))))
