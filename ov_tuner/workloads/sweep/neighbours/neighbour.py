"""One copy of the deployed configuration, as `ov-tuner neighbours` runs several side by side: its own process, as
each deployed model is, compiled with the properties the answer deploys (its pinning included), warmed up, then
measuring one steady window each time the parent asks, so that every copy's windows start together.

Protocol on stdin/stdout, one line each: the copy prints `ready` once compiled and warmed up; `visit SECONDS` runs
one window and prints its figures as JSON ({"fps": ..., "p90_ms": ...}); end of input ends it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from ov_tuner.deployable.deployed import FROM_FLAG, deployed_from
from ov_tuner.deployable.irs import job_compiler
from ov_tuner.devices.modelfile import open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.measure.engine import RequestLoop

WARMUP_S = 1.0


def serve(model: Path, results: Path, threads: int | None) -> None:
    """Compile the answer of `results` on `model` (with INFERENCE_NUM_THREADS `threads` where given), then answer
    the parent's visits until its input ends."""
    source = open_model_source(model)
    deployed = deployed_from(results, source, FROM_FLAG)
    config = deployed.config
    runtime = Runtime()
    (device,) = runtime.resolve_devices((config.device,))
    shapes = deployed.inputs.shapes if deployed.inputs else {}
    extra = {"INFERENCE_NUM_THREADS": str(threads)} if threads else None
    compiler = job_compiler(runtime, source, deployed.quantization, shapes)
    compiled, _ = compiler.compile(config.compile_key, device, extra)
    with RequestLoop(compiled, config.nireq, config.batch) as loop:
        loop.warm_up(WARMUP_S)
        print("ready", flush=True)
        for line in sys.stdin:
            window, latencies = loop.visit(float(line.split()[1]))
            print(json.dumps({"fps": window.fps, "p90_ms": float(np.percentile(latencies, 90))}), flush=True)


if __name__ == "__main__":
    serve(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]) or None)
