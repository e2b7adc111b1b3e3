"""Per-layer profile: where an inference's time goes, from OpenVINO's PERF_COUNT counters.

The counters of a request describe its last inference, so they are read after every completion of a
closed loop and summed. Each layer's exec type names the kernel that ran (e.g. brgconv_avx512_amx_bf16),
which shows the precision that really executed.
"""

from __future__ import annotations

import time
from pathlib import Path

import openvino as ov

from ov_tuner.environment import environment
from ov_tuner.runtime import Runtime, fill_inputs, open_model_source
from ov_tuner.schema import CompileKey, LayerTime, PointConfig, Profile
from ov_tuner.store import ResultStore, check_out_path


def run_profile(model_path: Path, config: PointConfig, seconds: float, out: Path,
                shapes: dict[str, list[int]] | None = None, warmup_s: float = 0.2) -> Profile:
    """Compile `config` with PERF_COUNT on, sum the layer counters of every inference for `seconds`, and store
    the profile in `out` beside the sweep's results."""
    check_out_path(out)
    runtime = Runtime()
    (device,) = runtime.resolve_devices((config.device,))
    source = open_model_source(model_path)
    model = runtime.read_model(source, config.precision)
    runtime.reshape(model, config.batch, shapes or {})
    key = CompileKey(config.device, config.precision, config.batch, config.streams)
    compiled, _ = runtime.compile(model, key, device, runtime.ir_path(source, config.precision),
                                  extra={"PERF_COUNT": "YES"})
    queue = ov.AsyncInferQueue(compiled, config.nireq)
    requests = [queue[i] for i in range(config.nireq)]
    totals: dict[str, LayerTime] = {}
    latencies: list[float] = []
    try:
        for request in requests:
            fill_inputs(request)
        for phase_s, keep in ((warmup_s, False), (seconds, True)):
            _loop(queue, requests, phase_s, totals if keep else {}, latencies if keep else [])
    finally:
        queue.wait_all()
        del requests, queue, compiled
    profile = Profile(config, len(latencies), sum(latencies) / max(len(latencies), 1), tuple(totals.values()))
    with ResultStore(out) as store:
        store.claim(environment(source))
        store.add_profile(profile)
    return profile


def _loop(queue: ov.AsyncInferQueue, requests: list[ov.InferRequest], seconds: float,
          totals: dict[str, LayerTime], latencies: list[float]) -> None:
    in_flight = [False] * len(requests)
    deadline = time.perf_counter_ns() + int(seconds * 1e9)
    started = 0
    while True:
        idle = queue.get_idle_request_id()
        if in_flight[idle]:
            _collect(requests[idle], totals, latencies)
            in_flight[idle] = False
        if time.perf_counter_ns() >= deadline and started >= len(requests):
            break
        queue.start_async()
        in_flight[idle] = True
        started += 1
    queue.wait_all()
    for i, busy in enumerate(in_flight):
        if busy:
            _collect(requests[i], totals, latencies)


def _collect(request: ov.InferRequest, totals: dict[str, LayerTime], latencies: list[float]) -> None:
    """Add the request's last inference: its latency, and each executed layer's time."""
    latencies.append(request.latency)
    for info in request.profiling_info:
        if info.status != ov.ProfilingInfo.Status.EXECUTED:
            continue
        ms = info.real_time.total_seconds() * 1000
        before = totals.get(info.node_name)
        total_ms, calls = (before.total_ms + ms, before.calls + 1) if before else (ms, 1)
        totals[info.node_name] = LayerTime(info.node_name, info.node_type, info.exec_type, total_ms, calls)

