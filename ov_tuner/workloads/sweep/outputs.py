"""The sweep's output comparison: each device, precision and batch's outputs against the FP32 reference (CPU, f32),
once, outside every timed loop; each stored, and never a reason to stop the sweep: a reference or a configuration
that does not compile is stored as not compared, said in one line, and the next goes on."""

from __future__ import annotations

import threading
from collections.abc import Callable

from ov_tuner.analyse.accuracy import compare_with_reference
from ov_tuner.devices.compiler import Compiler
from ov_tuner.devices.native import PointFailure, ov_error_text
from ov_tuner.errors import OvTunerError
from ov_tuner.measure.accuracy import Reference, reference, run_outputs
from ov_tuner.model.inputs import InputData
from ov_tuner.model.outputs import class_score_outputs
from ov_tuner.schema import Accuracy, Mode, PointConfig, Precision
from ov_tuner.store.results import ResultStore
from ov_tuner.workloads.sweep.notices import ComparingOutputs, OutputsNotCompared
from ov_tuner.workloads.sweep.plan import PlannedSpace
from ov_tuner.workloads.sweep.policy import Cell
from ov_tuner.workloads.sweep.progress import SweepProgress


def compare_outputs(compiler: Compiler, store: ResultStore, progress: SweepProgress, data: InputData,
                    spaces: list[PlannedSpace], inputs: int, skipped: Callable[[PlannedSpace], bool],
                    stop: threading.Event) -> None:
    """Every space's outputs against the reference at its batch, unless stored already or `skipped`."""
    done = {(a.device, a.precision, a.batch) for a in store.accuracies()}
    references: dict[int, Reference | str] = {}
    count = data.count(inputs)
    for planned in spaces:
        key = (planned.device.name, planned.precision, planned.batch)
        if key in done or skipped(planned) or stop.is_set():
            continue
        done.add(key)
        if planned.batch not in references:
            progress.note(ComparingOutputs(count, planned.batch, data.images is not None))
            references[planned.batch] = _reference(compiler, store, data, planned.batch, count)
        ref = references[planned.batch]
        accuracy = (_against(compiler, data, planned, ref) if isinstance(ref, Reference)
                    else Accuracy(*key, count, (), ref))
        store.add_accuracy(accuracy)
        if accuracy.error:
            progress.note(OutputsNotCompared(planned.device.name, planned.precision, accuracy.error))


def _against(compiler: Compiler, data: InputData, planned: PlannedSpace, ref: Reference) -> Accuracy:
    """One space's smallest configuration's outputs against the reference."""
    key = (planned.device.name, planned.precision, planned.batch)
    config = planned.config(Cell(1, 1)) if planned.mode is Mode.EXPLICIT else planned.baseline(planned.mode)
    try:
        compiled, _ = compiler.compile(config.compile_key, planned.device)
    except (PointFailure, OvTunerError) as e:
        return Accuracy(*key, 0, (), f"no compile: {e}")
    try:
        actual = run_outputs(compiled, data, config.batch, ref.inputs)
    except RuntimeError as e:
        return Accuracy(*key, ref.inputs, (), f"the comparison failed: {ov_error_text(e)}")
    finally:
        del compiled
    return compare_with_reference(config, ref, actual, class_score_outputs(compiler.model(Precision.FP32)))


def _reference(compiler: Compiler, store: ResultStore, data: InputData, batch: int, inputs: int) -> Reference | str:
    """The FP32 reference at a batch, stored once; or why there is none (its compile or run failed)."""
    stored = store.reference(batch, inputs)
    if stored is not None:
        return Reference.from_bytes(batch, inputs, *stored)
    cpu = compiler.runtime.device_info("CPU")
    try:
        compiled, _ = compiler.compile(PointConfig("CPU", Precision.FP32, batch, 1, 1).compile_key, cpu)
        try:
            ref = reference(compiled, data, batch, inputs)
        finally:
            del compiled
    except (PointFailure, OvTunerError, RuntimeError, MemoryError) as e:
        return f"no FP32 reference at batch {batch} ({e if isinstance(e, PointFailure) else ov_error_text(e)})"
    store.add_reference(batch, inputs, ref.deterministic, ref.to_bytes())
    return ref
