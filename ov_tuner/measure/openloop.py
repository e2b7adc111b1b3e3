"""Open-loop load, as cameras make it: frames arrive on a schedule, each frame one request; a frame that finds every
request busy waits in a host-side queue, and its latency counts from its arrival, not from its start: the latency
a camera sees.

Why not the closed loop: a closed loop starts the next request when one finishes, so it measures the most a
device can do, and its latency never includes waiting for a free request. A camera does not wait for the
device. A frame that arrives while as many frames as there are cameras already wait is dropped, as an edge pipeline
drops a stale frame rather than fall further behind.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

import numpy as np
import openvino as ov

from ov_tuner.measure import host
from ov_tuner.measure.ceiling import TRIVIAL_CONFIG, ceiling, trivial_model
from ov_tuner.measure.engine import free_queues
from ov_tuner.model.inputs import InputData
from ov_tuner.schema import HarnessCarried, LoadTrial


@dataclass(frozen=True)
class Arrivals:
    """`cameras` sources at `fps` frames per second each, for `seconds`: at constant intervals, each camera offset
    from the others (cameras do not run in step), or as a Poisson process at the same total rate."""

    cameras: int
    fps: float
    seconds: float
    poisson: bool = False
    seed: int = 0

    @property
    def rate(self) -> float:
        """Frames per second, all cameras together."""
        return self.cameras * self.fps

    def times(self) -> np.ndarray:
        """Arrival times in seconds from the start, sorted."""
        if self.poisson:
            rng = np.random.default_rng(self.seed)
            gaps = rng.exponential(1 / self.rate, size=int(self.rate * self.seconds * 1.5) + 16)
            times = np.cumsum(gaps)
            return times[times < self.seconds]
        per_camera = np.arange(0, self.seconds, 1 / self.fps)
        offsets = np.arange(self.cameras) / self.rate
        return np.sort((per_camera[None, :] + offsets[:, None]).ravel())


def run_open_loop(compiled: ov.CompiledModel, nireq: int, arrivals: Arrivals, lead_in_s: float = 1.0,
                  data: InputData | None = None) -> LoadTrial:
    """Feed `compiled` frames on the `arrivals` schedule through `nireq` requests, after `lead_in_s` seconds of
    the same load whose frames are served but not counted (the pipeline and the queue reach their steady state).

    Inputs are written into the requests once, before any clock. A frame waits while every request is busy (the
    loop blocks in `start_async`, and the frames that arrive meanwhile are admitted or dropped by their
    scheduled arrival: the queue they find is the one they would have found). Every started request completes
    before the trial's figures are made.
    """
    data = data or InputData()
    queue = ov.AsyncInferQueue(compiled, nireq)
    for i in range(nireq):
        data.fill(queue[i], i)
    done: list[tuple[int, int, float]] = []

    def completed(request: ov.InferRequest, arrived_ns: int) -> None:
        done.append((arrived_ns, time.perf_counter_ns(), request.latency))

    queue.set_callback(completed)
    offsets = np.concatenate([Arrivals(arrivals.cameras, arrivals.fps, lead_in_s, arrivals.poisson,
                                       arrivals.seed + 1).times() - lead_in_s, arrivals.times()]) if lead_in_s else \
        arrivals.times()
    start = time.perf_counter_ns() + int(lead_in_s * 1e9)
    schedule = start + (offsets * 1e9).astype(np.int64)
    waiting: deque[int] = deque()
    dropped = admitted = 0
    host_start: host.HostSample | None = None
    try:
        while admitted < len(schedule) or waiting:
            now = time.perf_counter_ns()
            if host_start is None and now >= start:
                host_start = host.sample()
            while admitted < len(schedule) and schedule[admitted] <= now:
                if len(waiting) >= arrivals.cameras:  # one frame per camera may wait; a newer one is dropped
                    dropped += int(schedule[admitted] >= start)
                else:
                    waiting.append(int(schedule[admitted]))
                admitted += 1
            if waiting:
                queue.start_async(userdata=waiting.popleft())  # blocks (GIL released) until a request is free
            else:
                time.sleep(max(0, schedule[admitted] - time.perf_counter_ns()) / 1e9)
    finally:
        queue.wait_all()
    load = host.load_between(host_start, host.sample()) if host_start else None
    counted = [d for d in done if d[0] >= start]
    del queue
    free_queues()
    return LoadTrial(
        cameras=arrivals.cameras, seconds=arrivals.seconds, offered=int(np.sum(schedule >= start)), dropped=dropped,
        latencies_ms=np.array([(d[1] - d[0]) / 1e6 for d in counted], dtype=np.float64),
        service_ms=np.array([d[2] for d in counted], dtype=np.float64),
        foreign_cpu=load.foreign_cpu if load else None, steal=load.steal if load else None)


def open_loop_ceiling(compiled: ov.CompiledModel, nireq: int, cameras: int, fps: float, seconds: float = 1.0,
                      lead_in_s: float = 0.3) -> HarnessCarried:
    """The frames a second this open loop carries with `compiled`'s inputs and `nireq` requests but the device's
    work made trivial (ov_tuner.measure.ceiling), `cameras` cameras from `fps` each up: the frames completed of those
    that arrived in the window, a second (a frame the loop could not start in time is dropped, so it falls behind)."""
    trivial = ov.Core().compile_model(trivial_model(list(compiled.inputs)), "CPU", TRIVIAL_CONFIG)

    def trial(rate: float) -> tuple[float, float]:
        load = run_open_loop(trivial, nireq, Arrivals(max(cameras, 1), rate, seconds), lead_in_s)
        return load.completed / seconds, load.offered / seconds

    return ceiling(trial, fps)
