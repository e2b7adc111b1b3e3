"""The measurement engine: a closed loop of `nireq` requests in flight through `openvino.AsyncInferQueue`.

Why this loop: Python waits for an idle request and restarts it, as OpenVINO's benchmark_app does, with
no Python callback per request. A Python callback costs a GIL hand-off on every completion (measured in
scripts/bench_loop.py); waiting for idle requests leaves the completion path entirely in C++.

What it guarantees: inputs are written into each request's tensors once, before any clock starts; the
warm-up is discarded; the window starts from an idle queue and its clock stops only after
every request it started has completed; each latency is the request's own C++-side timer.
"""

from __future__ import annotations

import time

import numpy as np
import openvino as ov

from ov_tuner.runtime import fill_inputs
from ov_tuner.schema import Measurement

# The window is cut into time slices to show its noise; a slice needs enough completions to mean anything.
MAX_SLICES = 10
MIN_COMPLETIONS_PER_SLICE = 20


def measure(
    compiled: ov.CompiledModel, nireq: int, batch: int, seconds: float, warmup_s: float
) -> Measurement:
    """Warm up for `warmup_s` (every request at least once; none when 0), then measure `seconds` of closed loop."""
    queue = ov.AsyncInferQueue(compiled, nireq)
    requests = [queue[i] for i in range(nireq)]
    try:
        for request in requests:
            fill_inputs(request)
        if warmup_s > 0:
            _closed_loop(queue, requests, warmup_s, min_starts=nireq)
        started, latencies, stamps, t0, t1 = _closed_loop(queue, requests, seconds, min_starts=nireq)
    finally:
        # Every request finishes before the queue goes, and the queue goes before the compiled model:
        # destroying them in another order can deadlock at exit on the GIL.
        queue.wait_all()
        del requests, queue
    wall_s = (t1 - t0) / 1e9
    return Measurement(
        requests=started,
        frames=started * batch,
        wall_s=wall_s,
        latencies_ms=np.asarray(latencies, dtype=np.float64),
        slice_fps=_slice_fps(np.asarray(stamps, dtype=np.int64) - t0, t1 - t0, batch),
    )


def _closed_loop(
    queue: ov.AsyncInferQueue, requests: list[ov.InferRequest], seconds: float, min_starts: int
) -> tuple[int, list[float], list[int], int, int]:
    """Keep every request busy for `seconds` from an idle queue, then drain it.

    Returns the number of requests started (all completed), their latencies in ms, the clock reading
    at which each completion was collected, and the window's start and end (perf_counter_ns).
    """
    in_flight = [False] * len(requests)
    latencies: list[float] = []
    stamps: list[int] = []
    started = 0
    get_idle, start_next, clock = queue.get_idle_request_id, queue.start_async, time.perf_counter_ns
    t0 = clock()
    deadline = t0 + int(seconds * 1e9)
    while True:
        idle = get_idle()  # blocks until a request is idle; start_async then takes that same request
        now = clock()
        if in_flight[idle]:
            latencies.append(requests[idle].latency)
            stamps.append(now)
            in_flight[idle] = False
        if now >= deadline and started >= min_starts:
            break
        start_next()
        in_flight[idle] = True
        started += 1
    queue.wait_all()
    t1 = clock()
    for i, busy in enumerate(in_flight):
        if busy:
            latencies.append(requests[i].latency)
            stamps.append(t1)
    return started, latencies, stamps, t0, t1


def _slice_fps(offsets_ns: np.ndarray, window_ns: int, batch: int) -> tuple[float, ...]:
    """Frames per second in equal time slices of the window (empty when too few completions)."""
    slices = min(MAX_SLICES, offsets_ns.size // MIN_COMPLETIONS_PER_SLICE)
    if slices < 3 or window_ns <= 0:
        return ()
    counts, _ = np.histogram(offsets_ns, bins=slices, range=(0, window_ns))
    slice_s = window_ns / slices / 1e9
    return tuple(float(c) * batch / slice_s for c in counts)
