"""Per-layer profile: where an inference's time goes, from OpenVINO's PERF_COUNT counters.

The counters of a request describe its last inference, so they are read after every completion of the
measurement engine's closed loop and summed. Each layer's exec type names the kernel that ran (e.g.
brgconv_avx512_amx_bf16), which shows the precision that really executed.
"""

from __future__ import annotations

from pathlib import Path

import openvino as ov

from ov_tuner.deployable import SWEEP_WRITER
from ov_tuner.deployable.irs import Quantizing, job_compiler
from ov_tuner.devices.environment import environment
from ov_tuner.devices.modelfile import model_files, open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.measure.engine import measure
from ov_tuner.schema import CompileKey, LayerTime, PointConfig, Profile, StopRule
from ov_tuner.store.destinations import results_file
from ov_tuner.store.results import ResultStore


def run_profile(model_path: Path, config: PointConfig, seconds: float, out: Path,
                shapes: dict[str, list[int]] | None = None, warmup_s: float = 0.2,
                quantizing: Quantizing | None = None) -> Profile:
    """Compile `config` with PERF_COUNT on, sum the layer counters of every inference for `seconds`, and store
    the profile in `out` beside the sweep's results. int8 runs an INT8 IR made as a sweep makes it (`quantizing`
    is told when NNCF starts)."""
    results_file(out, inputs=model_files(model_path))
    runtime = Runtime()
    (device,) = runtime.resolve_devices((config.device,))
    source = open_model_source(model_path)
    key = CompileKey(config.device, config.precision, config.batch, config.streams)
    compiler = job_compiler(runtime, source, shapes=shapes, quantizing=quantizing)
    compiled, _ = compiler.compile(key, device, {"PERF_COUNT": "YES"})
    totals: dict[str, LayerTime] = {}
    run = measure(compiled, config.nireq, config.batch, StopRule(window_s=seconds, fixed_s=seconds), warmup_s,
                  on_complete=lambda request: _add_layers(request, totals))
    del compiled
    profile = Profile(config, run.requests, float(run.latencies_ms.mean()), tuple(totals.values()))
    with ResultStore(out) as store:
        store.claim(environment(source), SWEEP_WRITER)
        store.add_profile(profile)
    return profile


def _add_layers(request: ov.InferRequest, totals: dict[str, LayerTime]) -> None:
    """Add the request's last inference: each executed layer's time."""
    for info in request.profiling_info:
        if info.status != ov.ProfilingInfo.Status.EXECUTED:
            continue
        ms = info.real_time.total_seconds() * 1000
        before = totals.get(info.node_name)
        total_ms, calls = (before.total_ms + ms, before.calls + 1) if before else (ms, 1)
        totals[info.node_name] = LayerTime(info.node_name, info.node_type, info.exec_type, total_ms, calls)
