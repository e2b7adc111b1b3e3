"""How many cameras a configuration serves: check the model and the devices, make the INT8 IR where asked, then
drive capacity's workload (ov_tuner.workloads.sweep.capacity.workload) on the one driver, whose stop ends it after the
trial in progress.
"""

from __future__ import annotations

import threading

from ov_tuner.deployable import SWEEP_WRITER
from ov_tuner.deployable.irs import Quantizing, job_compiler
from ov_tuner.devices.environment import environment
from ov_tuner.devices.modelfile import model_files, open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.engine.driver import drive
from ov_tuner.schema import Capacity
from ov_tuner.store.destinations import results_file
from ov_tuner.store.results import ResultStore
from ov_tuner.workloads.sweep.capacity.workload import CapacitySpec, CapacityWorkload, TrialSeen


def run_capacity(spec: CapacitySpec, on_trial: TrialSeen | None = None,
                 stop: threading.Event | None = None, quantizing: Quantizing | None = None) -> list[Capacity]:
    """Every configuration's trials, stored in `spec.out` as they end; `stop` set ends the run after the trial
    in progress (what was measured is kept). `quantizing` is told when NNCF starts making the INT8 IR."""
    results_file(spec.out, inputs=model_files(spec.model))
    runtime = Runtime()
    devices = {d.name: d for d in runtime.resolve_devices(tuple(dict.fromkeys(c.device for c in spec.configs)))}
    source = open_model_source(spec.model)
    compiler = job_compiler(runtime, source, spec.int8, spec.shapes, quantizing)
    with ResultStore(spec.out) as store:
        store.claim(environment(source), SWEEP_WRITER)
        workload = CapacityWorkload(spec, compiler, devices, store, on_trial)
        drive(workload, stop)
    return workload.capacities
