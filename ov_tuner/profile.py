"""Per-layer profile: where an inference's time goes, from OpenVINO's PERF_COUNT counters.

The counters of a request describe its last inference, so they are read after every completion of a
closed loop and summed. Each layer's exec type names the kernel that ran (e.g. brgconv_avx512_amx_bf16),
which shows the precision that really executed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import openvino as ov

from ov_tuner.runtime import Runtime, fill_inputs, open_model_source
from ov_tuner.schema import CompileKey, PointConfig


@dataclass(frozen=True)
class LayerTime:
    """One layer's time summed over `calls` executions, in milliseconds."""

    name: str
    layer_type: str
    exec_type: str
    total_ms: float
    calls: int

    @property
    def mean_ms(self) -> float:
        return self.total_ms / self.calls


@dataclass(frozen=True)
class TypeTime:
    layer_type: str
    total_ms: float
    share: float
    cumulative_share: float
    calls: int
    mean_ms: float
    exec_types: tuple[str, ...]


@dataclass(frozen=True)
class Profile:
    """Layer times over `inferences` inferences of one configuration, with their requests' mean latency."""

    config: PointConfig
    inferences: int
    mean_request_ms: float
    layers: tuple[LayerTime, ...]

    @property
    def layer_ms_per_inference(self) -> float:
        return sum(layer.total_ms for layer in self.layers) / self.inferences

    def top_layers(self, count: int) -> list[tuple[LayerTime, float, float]]:
        """The `count` slowest layers with their share and cumulative share of all layer time."""
        total = sum(layer.total_ms for layer in self.layers) or 1.0
        ranked = sorted(self.layers, key=lambda layer: layer.total_ms, reverse=True)
        result, running = [], 0.0
        for layer in ranked[:count]:
            running += layer.total_ms
            result.append((layer, layer.total_ms / total, running / total))
        return result

    def by_type(self) -> list[TypeTime]:
        """Layer time summed by layer type, slowest type first."""
        total = sum(layer.total_ms for layer in self.layers) or 1.0
        groups: dict[str, list[LayerTime]] = {}
        for layer in self.layers:
            groups.setdefault(layer.layer_type, []).append(layer)
        rows, running = [], 0.0
        for layer_type, members in sorted(groups.items(), key=lambda kv: -sum(m.total_ms for m in kv[1])):
            ms = sum(m.total_ms for m in members)
            calls = sum(m.calls for m in members)
            running += ms
            rows.append(TypeTime(layer_type, ms, ms / total, running / total, calls, ms / calls,
                                 tuple(sorted({m.exec_type for m in members}))))
        return rows


def run_profile(model_path: Path, config: PointConfig, seconds: float, shapes: dict[str, list[int]] | None = None,
                warmup_s: float = 0.2) -> Profile:
    """Compile `config` with PERF_COUNT on and sum the layer counters of every inference for `seconds`."""
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
    return Profile(config, len(latencies), sum(latencies) / max(len(latencies), 1), tuple(totals.values()))


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

