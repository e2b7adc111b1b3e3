"""Cold start: check the model and the device in this process, make the IR the precision reads, then drive the cold
start's workload (ov_tuner.workloads.sweep.coldstart.workload) on the one driver, whose stop ends it after the sample in
progress."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from ov_tuner.deployable import SWEEP_WRITER
from ov_tuner.deployable.irs import Quantizing, job_compiler
from ov_tuner.devices.environment import environment
from ov_tuner.devices.modelfile import model_files, open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.engine.driver import drive
from ov_tuner.schema import ColdStart, CompileKey, Precision
from ov_tuner.store.destinations import results_file
from ov_tuner.store.results import ResultStore
from ov_tuner.workloads.sweep.coldstart.workload import ColdStartWorkload, SampleSeen


@dataclass(frozen=True)
class ColdStartSpec:
    """One configuration's cold start, `repeats` times; int8 reads an INT8 IR made as a sweep makes it."""

    model: Path
    out: Path
    device: str = "CPU"
    precision: Precision = Precision.FP32
    batch: int = 1
    streams: int = 1
    shapes: dict[str, list[int]] = field(default_factory=dict)
    repeats: int = 5


def run_coldstart(spec: ColdStartSpec, quantizing: Quantizing | None = None, stop: threading.Event | None = None,
                  on_sample: SampleSeen | None = None) -> ColdStart:
    """Check the inputs in this process, then drive the cold start's workload
    (ov_tuner.workloads.sweep.coldstart.workload) on the one driver: `spec.repeats` samples in fresh processes, each
    stored in `spec.out` as it is taken; `stop` set ends it after the sample in progress (those taken are kept).
    `quantizing` is told when NNCF starts making the INT8 IR."""
    results_file(spec.out, inputs=model_files(spec.model))
    runtime = Runtime()
    source = open_model_source(spec.model)
    (device,) = runtime.resolve_devices((spec.device,))
    key = CompileKey(device.name, spec.precision, spec.batch, spec.streams)
    compiler = job_compiler(runtime, source, shapes=spec.shapes, quantizing=quantizing)
    compiler.model(spec.precision, spec.batch)  # makes the FP16 or INT8 IR now, not inside a timed child; checks shapes
    probe = {"ir": str(compiler.path(spec.precision)), "device": device.name, "precision": spec.precision.value,
             "batch": spec.batch, "streams": spec.streams, "shapes": spec.shapes}
    with ResultStore(spec.out) as store:
        store.claim(environment(source), SWEEP_WRITER)
        workload = ColdStartWorkload(key, probe, spec.repeats, store, on_sample)
        drive(workload, stop)
    return workload.cold
