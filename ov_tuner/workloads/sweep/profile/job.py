"""Per-layer profile: check the model and the device, compile the configuration with PERF_COUNT on, then drive the
profile's workload (ov_tuner.workloads.sweep.profile.workload) on the one driver."""

from __future__ import annotations

from pathlib import Path

from ov_tuner.deployable import SWEEP_WRITER
from ov_tuner.deployable.irs import Quantizing, job_compiler
from ov_tuner.devices.environment import environment
from ov_tuner.devices.modelfile import model_files, open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.engine.driver import drive
from ov_tuner.schema import CompileKey, PointConfig, Profile
from ov_tuner.store.destinations import results_file
from ov_tuner.store.results import ResultStore
from ov_tuner.workloads.sweep.profile.workload import ProfileWorkload


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
    with ResultStore(out) as store:
        store.claim(environment(source), SWEEP_WRITER)
        workload = ProfileWorkload(compiled, config, seconds, warmup_s, store)
        drive(workload)
    assert workload.profile is not None  # its one step, which nothing stops
    return workload.profile
