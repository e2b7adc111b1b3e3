"""Cold start: why the first inference is slow, with every cold figure taken in a fresh process.

A process that has already read or compiled a model keeps caches warm (plugin, kernels, file pages of
the IR aside), so each repeat runs three new interpreters: one without a model cache (read, compile,
first inference, then the steady median after warm-up), one that compiles with an empty CACHE_DIR
(writing the blob) and one that compiles from that CACHE_DIR.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ov_tuner.deployable import SWEEP_WRITER
from ov_tuner.deployable.irs import Quantizing, job_compiler
from ov_tuner.devices.environment import environment
from ov_tuner.devices.modelfile import model_files, open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.errors import OvTunerError
from ov_tuner.measure.engine import measure
from ov_tuner.schema import ColdStart, ColdStartSample, CompileKey, Precision, StopRule
from ov_tuner.store.destinations import results_file
from ov_tuner.store.results import ResultStore

# The steady median comes from this long a closed loop of one request, after this much warm-up.
STEADY_S, STEADY_WARMUP_S = 0.5, 0.2


@dataclass(frozen=True)
class ColdStartSpec:
    """One configuration's cold start, `repeats` times; int8 reads an INT8 IR made as a sweep makes it."""

    model: Path
    out: Path
    device: str = "CPU"
    precision: Precision = Precision.FP32
    batch: int = 1
    streams: int = 1
    shapes: dict[str, list[int]] = field(default_factory=dict)
    repeats: int = 5


def run_coldstart(spec: ColdStartSpec, quantizing: Quantizing | None = None) -> ColdStart:
    """Check the inputs in this process, take `spec.repeats` samples in fresh ones, store them in `spec.out`.
    `quantizing` is told when NNCF starts making the INT8 IR."""
    results_file(spec.out, inputs=model_files(spec.model))
    runtime = Runtime()
    source = open_model_source(spec.model)
    (device,) = runtime.resolve_devices((spec.device,))
    key = CompileKey(device.name, spec.precision, spec.batch, spec.streams)
    compiler = job_compiler(runtime, source, shapes=spec.shapes, quantizing=quantizing)
    compiler.model(spec.precision, spec.batch)  # makes the FP16 or INT8 IR now, not inside a timed child; checks shapes
    probe = {"ir": str(compiler.path(spec.precision)), "device": device.name, "precision": spec.precision.value,
             "batch": spec.batch, "streams": spec.streams, "shapes": spec.shapes}
    samples = []
    for _ in range(spec.repeats):
        plain = _spawn({**probe, "steady": True})
        with tempfile.TemporaryDirectory(prefix="ov-tuner-cache-") as cache:
            write = _spawn({**probe, "cache_dir": cache})
            hit = _spawn({**probe, "cache_dir": cache})
        samples.append(ColdStartSample(
            read_ms=plain["read_ms"], compile_ms=plain["compile_ms"], first_infer_ms=plain["first_infer_ms"],
            steady_median_ms=plain["steady_median_ms"], cache_write_compile_ms=write["compile_ms"],
            cache_compile_ms=hit["compile_ms"], cache_first_infer_ms=hit["first_infer_ms"]))
    cold = ColdStart(key, tuple(samples))
    with ResultStore(spec.out) as store:
        store.claim(environment(source), SWEEP_WRITER)
        store.add_coldstart(cold)
    return cold


def _spawn(probe: dict[str, object]) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-m", "ov_tuner.workloads.coldstart.job", json.dumps(probe)],
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
