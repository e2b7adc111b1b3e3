"""The measurement engine: a closed loop of `nireq` requests in flight through `openvino.AsyncInferQueue`.

Why this loop: Python waits for an idle request and restarts it, as OpenVINO's benchmark_app does, with
no Python callback per request. A Python callback costs a GIL hand-off on every completion (measured in
scripts/bench_loop.py); waiting for idle requests leaves the completion path entirely in C++.

What it guarantees: inputs are written into each request's tensors before any clock starts (in `full`
input mode, fresh data is copied in before every start, and that cost is measured); the warm-up is
discarded; the measured run starts from an idle queue and its clock stops only after every request it
started has completed; each latency is the request's own C++-side timer.

How long it runs: by default in windows (at least `window_s` and `min_window_requests` completions
each) until the last `settle_windows` agree within `tolerance` on FPS and on median latency, or
`max_s` has passed, or (for smart search) the windows so far show the point cannot win; with
`fixed_s`, for exactly that long. Either way every window is kept.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import openvino as ov

from ov_tuner.model.inputs import InputData
from ov_tuner.schema import Ending, InputMode, Measurement, StopRule, Window

# Told the windows so far, says whether the point is already out of the running.
GiveUp = Callable[[list[Window]], bool]


def measure(compiled: ov.CompiledModel, nireq: int, batch: int, rule: StopRule, warmup_s: float,
            input_mode: InputMode = InputMode.INFERENCE_ONLY, data: InputData | None = None,
            on_complete: Callable[[ov.InferRequest], None] | None = None,
            cannot_win: GiveUp | None = None) -> Measurement:
    """Warm up for `warmup_s` (every request at least once; none when 0), then measure until `rule` stops.

    `cannot_win`, asked after each window of a stability-driven run, ends it early when it says yes.
    `on_complete` sees each request of the measured run once its inference has completed (the profiler
    reads the request's counters there); it runs on the loop's thread, so its cost is measured too.
    """
    data = data or InputData()
    queue = ov.AsyncInferQueue(compiled, nireq)
    requests = [queue[i] for i in range(nireq)]
    try:
        for i, request in enumerate(requests):
            data.fill(request, i)
        start = _starter(queue, requests, input_mode, data)
        if warmup_s > 0:
            _closed_loop(queue, requests, start, batch, StopRule(window_s=warmup_s, fixed_s=warmup_s), nireq)
        run = _closed_loop(queue, requests, start, batch, rule, nireq, on_complete, cannot_win)
    finally:
        # Every request finishes before the queue goes, and the queue goes before the compiled model:
        # destroying them in another order can deadlock at exit on the GIL.
        queue.wait_all()
        del requests, queue
    return Measurement(
        requests=run.started,
        frames=run.started * batch,
        wall_s=run.wall_s,
        latencies_ms=np.asarray(run.latencies, dtype=np.float64),
        windows=tuple(run.windows),
        ended=run.ended,
        client_cpu_share=run.client_cpu_s / run.wall_s,
    )


def _starter(queue: ov.AsyncInferQueue, requests: list[ov.InferRequest], input_mode: InputMode,
             data: InputData) -> Callable[[], None]:
    """What starts the next request: as it is, or after copying a fresh set of inputs into it."""
    if input_mode is InputMode.INFERENCE_ONLY:
        return queue.start_async
    sets = data.sets(requests[0], count=len(requests) + 1)  # more sets than requests: data really changes
    position = 0

    def start_with_fresh_inputs() -> None:
        nonlocal position
        queue.start_async(sets[position])  # copies the arrays into the request's own tensors
        position = (position + 1) % len(sets)

    return start_with_fresh_inputs


@dataclass
class _Run:
    started: int
    latencies: list[float]
    windows: list[Window]
    wall_s: float
    client_cpu_s: float
    ended: Ending


def _closed_loop(queue: ov.AsyncInferQueue, requests: list[ov.InferRequest], start_next: Callable[[], None],
                 batch: int, rule: StopRule, min_starts: int,
                 on_complete: Callable[[ov.InferRequest], None] | None = None,
                 cannot_win: GiveUp | None = None) -> _Run:
    """Keep every request busy from an idle queue until `rule` stops, then drain the queue.

    A window closes at the first completion after it has lasted `window_s` and holds
    `min_window_requests` completions; its FPS is its completions over its own duration.
    """
    in_flight = [False] * len(requests)
    latencies: list[float] = []
    windows: list[Window] = []
    started = 0
    get_idle, clock = queue.get_idle_request_id, time.perf_counter_ns
    cpu_start = time.thread_time_ns()  # this thread only: the Python side of the loop, not OpenVINO's threads
    t0 = clock()
    deadline = t0 + int((rule.fixed_s if rule.fixed_s is not None else rule.max_s) * 1e9)
    window_ns, window_start, window_first = int(rule.window_s * 1e9), t0, 0
    stability_driven = rule.fixed_s is None
    ended = Ending.CAPPED if stability_driven else Ending.FIXED  # until a window says otherwise
    while True:
        idle = get_idle()  # blocks until a request is idle; start_next then takes that same request
        now = clock()
        if in_flight[idle]:
            latencies.append(requests[idle].latency)
            in_flight[idle] = False
            if on_complete is not None:
                on_complete(requests[idle])
            if now - window_start >= window_ns and len(latencies) - window_first >= rule.min_window_requests:
                windows.append(_window(latencies[window_first:], (now - window_start) / 1e9, batch))
                window_start, window_first = now, len(latencies)
                if stability_driven:
                    if rule.settled(windows):
                        ended = Ending.SETTLED
                        break
                    if cannot_win is not None and cannot_win(windows):
                        ended = Ending.OUTPACED
                        break
        if now >= deadline and started >= min_starts:
            break
        start_next()
        in_flight[idle] = True
        started += 1
    queue.wait_all()
    t1 = clock()
    client_cpu_s = (time.thread_time_ns() - cpu_start) / 1e9
    for request in (r for r, busy in zip(requests, in_flight, strict=True) if busy):
        latencies.append(request.latency)
        if on_complete is not None:
            on_complete(request)
    return _Run(started, latencies, windows, (t1 - t0) / 1e9, client_cpu_s, ended)


def _window(latencies: list[float], seconds: float, batch: int) -> Window:
    return Window(fps=len(latencies) * batch / seconds, median_ms=float(np.median(latencies)),
                  requests=len(latencies), seconds=seconds)
