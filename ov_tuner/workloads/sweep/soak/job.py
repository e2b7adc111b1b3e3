"""A soak: check the model and the device, compile the configuration, then drive the soak's workload
(ov_tuner.workloads.sweep.soak.workload) on the one driver; and the latest soak in a results file, with what the drift
analysis finds along it.

Ctrl-C (KeyboardInterrupt) ends it: every window already closed is on disk, and the requests in flight complete
before the exception goes on.
"""

from __future__ import annotations

from pathlib import Path

from ov_tuner.analyse.drift import SoakDrift, soak_drift
from ov_tuner.deployable import SWEEP_WRITER
from ov_tuner.deployable.irs import Quantizing, job_compiler
from ov_tuner.devices.environment import environment
from ov_tuner.devices.modelfile import model_files, open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.engine.driver import drive
from ov_tuner.schema import Environment
from ov_tuner.store.destinations import results_file
from ov_tuner.store.results import ResultStore, load_results
from ov_tuner.workloads.sweep.soak.workload import SoakSpec, SoakWorkload, WindowSeen


def run_soak(spec: SoakSpec, on_window: WindowSeen | None = None, quantizing: Quantizing | None = None) -> int:
    """Run the soak, storing each window as it closes; returns the soak's id in the results file. `quantizing` is
    told when NNCF starts making the INT8 IR."""
    results_file(spec.out, inputs=model_files(spec.model))
    runtime = Runtime()
    (device,) = runtime.resolve_devices((spec.config.device,))
    source = open_model_source(spec.model)
    compiler = job_compiler(runtime, source, spec.int8, spec.shapes, quantizing)
    compiled, _ = compiler.compile(spec.config.compile_key, device)
    with ResultStore(spec.out) as store:
        store.claim(environment(source), SWEEP_WRITER)
        workload = SoakWorkload(spec, compiled, store, on_window)
        drive(workload)
    soak_id = workload.soak_id
    del compiled, workload
    assert soak_id is not None  # its one step began it
    return soak_id


def latest_soak(results: Path) -> tuple[SoakDrift, Environment] | None:
    """The latest soak in `results`, what the drift analysis finds along it and the environment it ran in; None where
    no soak began (stopped before its first window)."""
    stored = load_results(results)
    return (soak_drift(stored.soaks[-1]), stored.environment) if stored.soaks else None
