"""Why ov-tuner's measurement loop waits for idle requests instead of using a Python callback.

Runs the tiny one-convolution model (where loop overhead shows most) and MobileNet-v2 with both loop
designs, interleaved A B A B, and prints inferences per second. Run by hand:

    .venv/bin/python scripts/bench_loop.py [--seconds 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import openvino as ov

from ov_tuner.measure.engine import measure
from ov_tuner.model.generated import fill_inputs
from ov_tuner.model.zoo import build_zoo_model
from ov_tuner.schema import StopRule


def callback_loop(compiled: ov.CompiledModel, nireq: int, seconds: float) -> float:
    """The alternative design: a Python callback records each completion and restarts nothing itself."""
    queue = ov.AsyncInferQueue(compiled, nireq)
    for request in queue:
        fill_inputs(request)
    latencies: list[float] = []
    queue.set_callback(lambda request, _: latencies.append(request.latency))
    for _ in range(nireq * 2):  # warm-up
        queue.start_async()
    queue.wait_all()
    latencies.clear()
    started = 0
    t0 = time.perf_counter_ns()
    deadline = t0 + int(seconds * 1e9)
    while time.perf_counter_ns() < deadline:
        queue.start_async()
        started += 1
    queue.wait_all()
    wall = (time.perf_counter_ns() - t0) / 1e9
    del queue
    return started / wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    core = ov.Core()
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("tiny_conv", "mobilenet_v2"):
            model = core.read_model(build_zoo_model(name, Path(tmp))[0])
            shape = [1, *[d.get_length() for d in list(model.input(0).get_partial_shape())[1:]]]
            model.reshape({0: shape})
            for streams, nireq in ((1, 1), (2, 2), (2, 4)):
                compiled = core.compile_model(model, "CPU", {"NUM_STREAMS": str(streams),
                                                            "INFERENCE_PRECISION_HINT": "f32"})
                idle, callback = [], []
                for _ in range(args.repeats):
                    idle.append(measure(compiled, nireq, 1, StopRule(fixed_s=args.seconds), 0.3).fps)
                    callback.append(callback_loop(compiled, nireq, args.seconds))
                a, b = statistics.median(idle), statistics.median(callback)
                print(f"{name:13s} streams {streams} nireq {nireq}:  wait-for-idle {a:9.0f}/s   "
                      f"python-callback {b:9.0f}/s   ratio {a / b:.2f}   "
                      f"(spread {min(idle):.0f}-{max(idle):.0f} vs {min(callback):.0f}-{max(callback):.0f})")
                del compiled


if __name__ == "__main__":
    main()
