"""What the host can do at most, measured on it: the memory bandwidth its cores copy at, and the GFLOP/s one large
matmul runs at on a device. An LLM's decode step reads every weight once and multiplies by each, so these two say
how far a served model is from what this box allows (ov_tuner.workloads.llm.roofline).

Why measure and not look up: a container's CPU quota, a shared host's neighbours and the memory channels populated
change both, and a datasheet knows none of them. Both are best-of-several, as a peak is: the noise of a shared host
only ever lowers them.
"""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import openvino as ov
import openvino.opset13 as ops

# Bytes each copying thread moves from and to: past any core's share of a last-level cache, and, on 16 cores, half
# a GiB of sources and as much of targets, which a container's memory limit allows.
COPY_BYTES = 32 * 2**20
COPY_REPEATS = 5
# The matmul timed: tokens x width by width x width, the shape of a prefill chunk through a wide layer.
MATMUL_TOKENS, MATMUL_WIDTH = 512, 2048
MATMUL_SECONDS = 0.5


def memory_gbs(cores: int | None = None) -> float:
    """GB/s the process's cores (one thread each) copy at, reads and writes counted, best of COPY_REPEATS. NumPy's
    copy leaves the GIL, so the threads copy at once."""
    threads = cores or len(os.sched_getaffinity(0))
    words = COPY_BYTES // 8
    sources = [np.ones(words) for _ in range(threads)]
    targets = [np.zeros(words) for _ in range(threads)]  # written once, so no copy pays for first-touch faults
    best = 0.0
    for _ in range(COPY_REPEATS):
        copies = [threading.Thread(target=np.copyto, args=(t, s)) for s, t in zip(sources, targets, strict=True)]
        started = time.perf_counter()
        for copy in copies:
            copy.start()
        for copy in copies:
            copy.join()
        best = max(best, 2 * threads * COPY_BYTES / (time.perf_counter() - started) / 1e9)
    return best


def matmul_gflops(core: ov.Core, device: str, precision: str | None) -> tuple[str, float]:
    """The precision the device ran a large matmul in (asked for `precision`; None: its default) and its GFLOP/s,
    one request with every thread (as one pipeline runs), best over MATMUL_SECONDS. Compiled here and not through
    ov-tuner's compile path: it is a probe of the device, not a model a user gave."""
    rng = np.random.default_rng(0)
    tokens = ops.parameter([MATMUL_TOKENS, MATMUL_WIDTH], ov.Type.f32)
    weights = ops.constant(rng.standard_normal((MATMUL_WIDTH, MATMUL_WIDTH)).astype(np.float32))
    model = ov.Model([ops.matmul(tokens, weights, False, False)], [tokens], "matmul")
    config = {"PERFORMANCE_HINT": "LATENCY", **({"INFERENCE_PRECISION_HINT": precision} if precision else {})}
    compiled = core.compile_model(model, device, config)
    request = compiled.create_infer_request()
    data = rng.standard_normal((MATMUL_TOKENS, MATMUL_WIDTH)).astype(np.float32)
    request.infer({0: data})  # the first inference builds the kernels: not timed
    best, began = np.inf, time.perf_counter()
    while time.perf_counter() - began < MATMUL_SECONDS:
        started = time.perf_counter()
        request.infer({0: data})
        best = min(best, time.perf_counter() - started)
    ran = compiled.get_property("INFERENCE_PRECISION_HINT").get_type_name()
    return ran, 2 * MATMUL_TOKENS * MATMUL_WIDTH**2 / best / 1e9
