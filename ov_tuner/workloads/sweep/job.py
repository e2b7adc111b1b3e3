"""The sweep from a spec to a summary: check everything that can be checked before measuring (model, devices,
shapes, output path), so bad input costs nothing; prepare the models; drive the sweep's workload on the one driver
(ov_tuner.workloads.sweep.workload: search every space, then confirm the contenders); say what was done.
"""

from __future__ import annotations

import threading
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import openvino as ov

from ov_tuner.deployable import SWEEP_WRITER
from ov_tuner.devices.compiler import Compiler
from ov_tuner.devices.decisions import auto_precisions
from ov_tuner.devices.environment import environment
from ov_tuner.devices.modelfile import ModelSource, model_files, open_model_source, set_layouts
from ov_tuner.devices.quota import cpu_quota
from ov_tuner.devices.runtime import Runtime
from ov_tuner.engine.budget import TimeBudget
from ov_tuner.engine.driver import Watch, drive
from ov_tuner.errors import QuantizationError
from ov_tuner.measure import host
from ov_tuner.model.inputs import InputData, add_image_preprocessing, load_images
from ov_tuner.quantize.data import split_images
from ov_tuner.quantize.ir import int8_ir
from ov_tuner.quantize.make import QuantizedIR
from ov_tuner.schema import (
    ACCURACY_INPUTS,
    FOREIGN_CPU_LIMIT,
    ModelInputs,
    Precision,
    SweepSpec,
)
from ov_tuner.store.destinations import results_file
from ov_tuner.store.results import ResultStore
from ov_tuner.workloads.sweep.notices import (
    CgroupsRemoved,
    HostBusy,
    InBox,
    PrecisionsChosen,
    QuantizationFailed,
    Quantized,
    Quantizing,
)
from ov_tuner.workloads.sweep.plan import THREADS, fit_to_box, plan
from ov_tuner.workloads.sweep.progress import Silent, SweepProgress
from ov_tuner.workloads.sweep.search import Driver
from ov_tuner.workloads.sweep.summary import SweepSummary, summarise
from ov_tuner.workloads.sweep.workload import SweepWorkload


def run_sweep(
    spec: SweepSpec,
    progress: SweepProgress | None = None,
    stop: threading.Event | None = None,
    runtime: Runtime | None = None,
    store: ResultStore | None = None,
    budget: TimeBudget | None = None,
    watch: Watch | None = None,
) -> SweepSummary:
    """Measure what the search asks for in every space of `spec` not yet in `spec.out`; return what was done.

    `store` replaces the file at `spec.out`: a fleet sweep passes one whose every write goes to the driver's
    machine (ov_tuner.fleet), so the same search runs on a node that has no results file of its own. `budget`: the
    run's time budget, which its phases share (ov_tuner.engine.budget); `watch` is told the plan and the clock."""
    progress = progress or Silent()
    with cpu_quota(spec.cpus) if spec.cpus is not None else nullcontext() as quota:
        if quota is not None and quota.removed:
            progress.note(CgroupsRemoved(quota.removed))
        return _run_sweep(spec, progress, stop or threading.Event(), runtime or Runtime(), store, budget=budget,
                          watch=watch)


def _run_sweep(spec: SweepSpec, progress: SweepProgress, stop: threading.Event, runtime: Runtime,
               store: ResultStore | None, budget: TimeBudget | None, watch: Watch | None) -> SweepSummary:
    """run_sweep, inside the box it measures in."""
    quiet_start = host.sample()  # what other processes do while the model is prepared: is the host busy?
    if store is None:
        results_file(spec.out, inputs=model_files(spec.model))
    source = open_model_source(spec.model)
    env = environment(source)
    devices = runtime.resolve_devices(spec.devices)
    assert env.box is not None
    fitted = fit_to_box(spec, devices, env.box.cpus if env.box.limited else None)
    in_box = InBox(env.box, fitted.settings.get(THREADS, ()) if fitted is not spec else (), spec.cpus is not None)
    spec = fitted
    runtime.check_settings(devices, spec.settings)
    images = load_images(spec.images) if spec.images else None
    spaces = plan(spec, devices)
    # The FP32 IR (the model as given) also feeds the output reference and the "OpenVINO default" baseline.
    reference = [Precision.FP32] if spec.accuracy_inputs or spec.baselines else []
    wanted = dict.fromkeys([*(s.precision for s in spaces), *reference])
    int8 = _int8(runtime, source, spec, images, progress, store) if Precision.INT8 in wanted else None
    if int8 is None and Precision.INT8 in wanted:  # NNCF could not quantize it: said, and the rest goes on
        spaces = [s for s in spaces if s.precision is not Precision.INT8]
        del wanted[Precision.INT8]
    if int8 is not None and not int8.record.given and images is not None:
        images = split_images(images)[1]  # accuracy only on images NNCF did not calibrate on
    with_images = images is not None
    compiler = Compiler(runtime, source, None if int8 is None else lambda: int8.path,
                        prepare=lambda model: _prepared(model, spec, with_images), cache_dir=spec.cache_dir,
                        cache_everywhere=spec.cache_everywhere)
    for precision in wanted:  # each model read once, now: a model or batch problem surfaces before anything runs
        compiler.model(precision)
    for batch in spec.batches:
        compiler.model(spaces[0].precision, batch)

    with ResultStore(spec.out) if store is None else nullcontext(store) as store:
        store.claim(env, SWEEP_WRITER)
        if in_box.threads or in_box.quota_set:  # a box that changes the search is said first; the end says any box
            progress.note(in_box)
        store.record_inputs(ModelInputs(spec.shapes, spec.layouts))
        for device in devices:
            store.record_device(device)
        busy = host.foreign_load_since(quiet_start)
        if busy is not None and busy > FOREIGN_CPU_LIMIT:
            progress.note(HostBusy(busy))
        if spec.precisions is None:
            for device in devices:
                swept, merged = auto_precisions(device)
                for m in merged:
                    store.record_merged(m)
                progress.note(PrecisionsChosen(device.name, swept, merged))
        if int8 is not None:
            store.record_quantization(int8.record)
        run = Driver(compiler, store, spec, progress, stop, InputData(images))
        run.plan(spaces)
        before, compiles, rounds = store.points(), store.compile_count(), len(store.confirmations())
        workload = SweepWorkload(run, spaces, compiler)
        driven = drive(workload, stop, budget, watch)
        confirmed = workload.confirmed if len(store.confirmations()) > rounds else 0
        return summarise(spec.out, run.planned, run.grid_size, before=before, after=store.points(),
                         compiles=store.compile_count() - compiles, confirmed=confirmed, search_s=workload.search_s,
                         confirm_s=driven.rounds_s, interrupted=stop.is_set(), warmup_s=spec.warmup_s)


def _int8(runtime: Runtime, source: ModelSource, spec: SweepSpec, images: list[np.ndarray] | None,
          progress: SweepProgress, store: ResultStore | None) -> QuantizedIR | None:
    """The INT8 IR, made the way `ov-tuner quantize` makes it (from the cache after the first time); None where
    NNCF could not quantize the model. A results file that holds another INT8 IR's points refuses before NNCF
    runs (`store`, or the file at spec.out)."""
    options = spec.int8_options
    assert options is not None

    def check(ir: Path) -> None:
        if store is not None:
            store.check_int8_ir(str(ir))
        elif spec.out.exists():
            with ResultStore(spec.out, create=False) as stored:
                stored.check_int8_ir(str(ir))

    try:
        made = int8_ir(runtime, source, options, images=images, images_dir=spec.images, shapes=spec.shapes,
                       layouts=spec.layouts, held_apart=spec.accuracy_inputs or ACCURACY_INPUTS, check=check,
                       starting=lambda on_images: progress.note(Quantizing(on_images)))
    except QuantizationError as e:
        progress.note(QuantizationFailed(str(e)))
        return None
    progress.note(Quantized(made.record))
    return made


def _prepared(model: ov.Model, spec: SweepSpec, with_images: bool) -> ov.Model:
    """The model with the user's layouts and shapes, then image preprocessing when real images go in. --shape is
    written in the model's own layout, so it is applied before the preprocessing turns the image input into NHWC;
    from here on a reshape only moves each input's batch axis."""
    set_layouts(model, spec.layouts)
    Runtime.reshape(model, spec.batches[0], spec.shapes)
    return add_image_preprocessing(model) if with_images else model

