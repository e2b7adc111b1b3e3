"""The measurement engine: a closed loop of `nireq` requests in flight through `openvino.AsyncInferQueue`.

Why this loop: Python waits for an idle request and restarts it, as OpenVINO's benchmark_app does, with
no Python callback per request. A Python callback costs a GIL hand-off on every completion (measured in
scripts/bench_loop.py); waiting for idle requests leaves the completion path entirely in C++.

What it guarantees: inputs are written into each request's tensors before any clock starts (in `full`
input mode, fresh data is copied in before every start, and that cost is measured); the warm-up is
discarded; a measured run starts from an idle queue and its clock stops only after every request it
started has completed; each latency is the request's own C++-side timer; every window records what
the host did meanwhile (ov_tuner.measure.host).

How long it runs: by default in windows (at least `window_s` and `min_window_requests` completions
each) until StopRule.ending says so: the last windows agree, the caller's verdict (smart search) ends
it, or `max_s` has passed; with `fixed_s`, for exactly that long. Either way every window is kept.
A RequestLoop outlives one run, so the confirmation round can visit several compiled models in turn.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import openvino as ov

from ov_tuner.measure import host
from ov_tuner.model.inputs import InputData
from ov_tuner.schema import Ending, InputMode, Measurement, StopRule, Verdict, Window, counted
from ov_tuner.stats.interval import fps_interval

WindowClosed = Callable[[Window, np.ndarray], None]

class RequestLoop:
    """One compiled model's queue of `nireq` requests with their inputs written, ready to run again and again.

    Close it (or use it as a context manager) before the compiled model goes: every request finishes
    before the queue goes, and the queue before the compiled model, since destroying them in another
    order can deadlock at exit on the GIL.
    """

    def __init__(self, compiled: ov.CompiledModel, nireq: int, batch: int,
                 input_mode: InputMode = InputMode.INFERENCE_ONLY, data: InputData | None = None) -> None:
        data = data or InputData()
        self.nireq, self.batch = nireq, batch
        self._queue = ov.AsyncInferQueue(compiled, nireq)
        self._requests = [self._queue[i] for i in range(nireq)]
        for i, request in enumerate(self._requests):
            data.fill(request, i)
        self._start = _starter(self._queue, self._requests, input_mode, data)

    def __enter__(self) -> RequestLoop:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._requests:
            self._queue.wait_all()
            self._requests = []
            del self._queue
            free_queues()

    def warm_up(self, seconds: float) -> None:
        """Run the closed loop unmeasured for `seconds` (every request at least once)."""
        if seconds > 0:
            self.run(StopRule(window_s=seconds, fixed_s=seconds))

    def run(self, rule: StopRule, verdict: Verdict | None = None,
            on_complete: Callable[[ov.InferRequest], None] | None = None,
            on_window: WindowClosed | None = None) -> Measurement:
        """Measure from an idle queue until `rule` (and `verdict`, for a stability-driven run) ends it.
        `on_window` sees each window as it closes, with its requests' latencies (a soak stores it there)."""
        loop = _Loop(queue=self._queue, requests=self._requests, start_next=self._start, batch=self.batch, rule=rule,
                     on_complete=on_complete, verdict=verdict, on_window=on_window)
        return loop.run()

    def visit(self, seconds: float, least_requests: int = StopRule.min_window_requests) -> tuple[Window, np.ndarray]:
        """One steady-state window of about `seconds`, for interleaved rounds: every request completes once
        unmeasured (the pipeline fills), then the window runs from one completion to the first completion
        after `seconds` and `least_requests` completions, then the queue drains unmeasured. Returns the window
        and its requests' latencies.

        Counting from completion to completion leaves out the filling and draining of the pipeline, which
        would otherwise cost a configuration with longer requests more of a short window than a quick one.
        """
        loop = _Loop(self._queue, self._requests, self._start, self.batch,
                     StopRule(window_s=seconds, min_window_requests=least_requests, fixed_s=seconds),
                     lead_in=self.nireq)
        run = loop.run()
        (window,) = run.windows
        return window, loop.window_latencies


def measure(compiled: ov.CompiledModel, nireq: int, batch: int, rule: StopRule, warmup_s: float,
            input_mode: InputMode = InputMode.INFERENCE_ONLY, data: InputData | None = None,
            on_complete: Callable[[ov.InferRequest], None] | None = None,
            verdict: Verdict | None = None) -> Measurement:
    """Warm up for `warmup_s` (every request at least once; none when 0), then measure until `rule` stops.

    `verdict`, asked after each window of a stability-driven run, ends it early when it names an ending.
    `on_complete` sees each request of the measured run once its inference has completed (the profiler
    reads the request's counters there); it runs on the loop's thread, so its cost is measured too.
    """
    with RequestLoop(compiled, nireq, batch, input_mode, data) as loop:
        loop.warm_up(warmup_s)
        return loop.run(rule, verdict, on_complete)


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
class _Loop:
    """One closed-loop run over a queue: keep every request busy until the rule stops it, then drain.

    A window closes at the first completion after it has lasted `window_s` and holds `min_window_requests`
    completions; its FPS is its completions over its own duration. With `lead_in` completions first, the
    run's clock starts at a completion instead of at the idle queue (see RequestLoop.visit).
    """

    queue: ov.AsyncInferQueue
    requests: list[ov.InferRequest]
    start_next: Callable[[], None]
    batch: int
    rule: StopRule
    on_complete: Callable[[ov.InferRequest], None] | None = None
    verdict: Verdict | None = None
    lead_in: int = 0
    on_window: WindowClosed | None = None
    latencies: list[float] = field(default_factory=list)
    windows: list[Window] = field(default_factory=list)
    window_latencies: np.ndarray = field(default_factory=lambda: np.empty(0))

    def run(self) -> Measurement:
        in_flight = [False] * len(self.requests)
        get_idle, clock, rule = self.queue.get_idle_request_id, time.perf_counter_ns, self.rule
        if self.lead_in:
            self._fill(in_flight)
        started = 0
        cpu_start = time.thread_time_ns()  # this thread only: the Python side of the loop, not OpenVINO's threads
        t0 = clock()
        run_start = window_host = host.sample()
        deadline = t0 + int((rule.fixed_s if rule.fixed_s is not None else rule.max_s) * 1e9)
        window_ns, window_start, window_first = int(rule.window_s * 1e9), t0, 0
        stability_driven = rule.fixed_s is None
        ended = Ending.UNSETTLED if stability_driven else Ending.FIXED  # until a window says otherwise
        while True:
            idle = get_idle()  # blocks until a request is idle; start_next then takes that same request
            now = clock()
            if in_flight[idle]:
                self._complete(idle)
                in_flight[idle] = False
                if now - window_start >= window_ns and len(self.latencies) - window_first >= rule.min_window_requests:
                    now_host = host.sample()
                    self.windows.append(_window(self.latencies[window_first:], (now - window_start) / 1e9,
                                                self.batch, host.load_between(window_host, now_host)))
                    if self.on_window is not None:
                        self.on_window(self.windows[-1], np.asarray(self.latencies[window_first:]))
                    if self.lead_in:  # a visit: one window, then drain
                        self.window_latencies = np.asarray(self.latencies[window_first:])
                        break
                    window_start, window_first, window_host = now, len(self.latencies), now_host
                    if stability_driven:
                        decided = rule.ending(self.windows, (now - t0) / 1e9, self.verdict)
                        if decided is not None and decided is not Ending.UNSETTLED:
                            ended = decided
                            break
            if now >= deadline and started >= len(self.requests) and not self.lead_in:
                break  # (a visit ends at its window's closing completion instead)
            self.start_next()
            in_flight[idle] = True
            started += 1
        self.queue.wait_all()
        t1 = clock()
        client_cpu_s = (time.thread_time_ns() - cpu_start) / 1e9
        process_cpu_s = host.sample().own_cpu_s - run_start.own_cpu_s
        for i in (i for i, busy in enumerate(in_flight) if busy):
            self._complete(i)
        wall_s = (t1 - t0) / 1e9
        return Measurement(requests=started, frames=started * self.batch, wall_s=wall_s,
                           latencies_ms=np.asarray(self.latencies, dtype=np.float64), windows=tuple(self.windows),
                           ended=ended, client_cpu_share=client_cpu_s / wall_s, process_cpu_s=process_cpu_s,
                           fps_ci95=fps_interval(counted(self.windows)))

    def _fill(self, in_flight: list[bool]) -> None:
        """Start every request and restart each as it completes, until `lead_in` have completed unmeasured."""
        done = 0
        while done < self.lead_in:
            idle = self.queue.get_idle_request_id()
            if in_flight[idle]:
                done += 1
            self.start_next()
            in_flight[idle] = True
        # The requests now in flight were started before the clock: their completions count in the window,
        # as a steady state's do, but not as `started`.

    def _complete(self, index: int) -> None:
        self.latencies.append(self.requests[index].latency)
        if self.on_complete is not None:
            self.on_complete(self.requests[index])


def _window(latencies: list[float], seconds: float, batch: int, load: host.HostLoad) -> Window:
    return Window(fps=len(latencies) * batch / seconds, median_ms=float(np.median(latencies)),
                  requests=len(latencies), seconds=seconds, foreign_cpu=load.foreign_cpu, steal=load.steal,
                  own_cpu_s=load.own_cpu_s, cpu_mhz=load.cpu_mhz)


def free_queues() -> None:
    """Free now the request queues a loop let go of, while their compiled models live and every request is done.

    A queue caught in a reference cycle (its callback, the requests' userdata) is otherwise freed by the cyclic
    collector at some later moment, possibly after its compiled model: that destructor joins the stream threads
    holding the GIL while one of them waits for the GIL to let the queue's Python objects go, and the process
    hangs (seen at a test module's teardown, where the compiled model of a module fixture went first)."""
    gc.collect()
