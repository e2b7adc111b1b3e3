"""Tune a pipeline: read and check its file (every stage's model, shapes, device, precision and counted output, before
anything is measured), compile each stage's models once, then drive the pipeline's workload
(ov_tuner.workloads.pipeline.workload) on the one driver. A rerun of the same command resumes from what is stored.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import replace
from pathlib import Path

import openvino as ov

from ov_tuner.deployable.configs import default_precision
from ov_tuner.deployable.deployed import Deployed
from ov_tuner.deployable.irs import Quantizing, job_compiler
from ov_tuner.devices.environment import environment
from ov_tuner.devices.modelfile import example_dims, model_files, open_model_source, shape_text
from ov_tuner.devices.runtime import Runtime
from ov_tuner.engine.budget import TimeBudget
from ov_tuner.engine.driver import Watch, drive
from ov_tuner.errors import BadInputError
from ov_tuner.schema import Precision, Quantization
from ov_tuner.store.destinations import results_file
from ov_tuner.workloads.pipeline.answer import pipeline_answer
from ov_tuner.workloads.pipeline.answer_record import PipelineAnswer
from ov_tuner.workloads.pipeline.compiler import SplitCompiler
from ov_tuner.workloads.pipeline.file import read_pipeline
from ov_tuner.workloads.pipeline.frames import check_counted_output
from ov_tuner.workloads.pipeline.results_file import PipelineStore, stored_pipeline
from ov_tuner.workloads.pipeline.schema import WRITER, PipelineStage
from ov_tuner.workloads.pipeline.workload import PipelineSpec, PipelineWorkload, SoloAnswer, SoloSeen, TrialSeen


def run_pipeline(spec: PipelineSpec, on_trial: TrialSeen | None = None, on_solo: SoloSeen | None = None,
                 stop: threading.Event | None = None, quantizing: Quantizing | None = None,
                 budget: TimeBudget | None = None, watch: Watch | None = None) -> PipelineAnswer | None:
    """Tune `spec.file`'s pipeline into `spec.out`, and its answer from everything stored; `stop` set ends it after
    the trial in progress (what was measured is kept; None where no trial was); `budget`, the run's time budget,
    is shared by its phases (ov_tuner.engine.budget), and `watch` is told the plan and the clock."""
    read = read_pipeline(spec.file)
    pipeline = read.pipeline
    inputs = [spec.file, *(f for s in pipeline.stages for f in model_files(Path(s.model))),
              *(Path(s.answer_from) for s in pipeline.stages if s.answer_from),
              *((Path(pipeline.video.file),) if pipeline.video.file else ())]
    results_file(spec.out, inputs=inputs)
    runtime = Runtime()
    devices = {d.name: d for d in runtime.resolve_devices(tuple(dict.fromkeys(s.device for s in pipeline.stages)))}
    answers = [_solo_answer(deployed) for deployed in read.answers]
    pipeline = replace(pipeline, stages=tuple(
        replace(stage, precision=stage.precision or (answer[0].config.precision if answer else
                                                     default_precision(devices[stage.device])))
        for stage, answer in zip(pipeline.stages, answers, strict=True)))
    sources = [open_model_source(Path(s.model)) for s in pipeline.stages]
    outputs: set[str] = set()  # the previous stage's output names, which a per-detection stage counts in
    for index, (stage, source) in enumerate(zip(pipeline.stages, sources, strict=True)):
        model = runtime.read_model(source, Precision.FP32)
        _check_static(stage, model)
        if stage.per_detection is not None:  # never the first stage: read_pipeline refuses that
            check_counted_output(stage, pipeline.stages[index - 1], outputs)
        outputs = {name for output in model.outputs for name in output.get_names()}
    quantized: dict[int, Quantization] = {}  # each stage's INT8 IR, as its compiler finds or makes it
    compilers = [job_compiler(runtime, source, answer[1] if answer else None, stage.shapes, quantizing,
                              made=functools.partial(quantized.__setitem__, index))
                 for index, (stage, source, answer) in enumerate(zip(pipeline.stages, sources, answers, strict=True))]
    compiler = SplitCompiler(pipeline, compilers, [devices[s.device] for s in pipeline.stages], quantized)
    with PipelineStore(spec.out) as store:
        store.claim(environment(open_model_source(Path(pipeline.stages[0].model))), WRITER)
        store.claim_pipeline(pipeline)
        workload = PipelineWorkload(spec, answers, compiler, store, on_trial=on_trial, on_solo=on_solo, stop=stop)
        try:
            drive(workload, stop, budget, watch)
        finally:
            compiler.close()
        stored = stored_pipeline(store)
    return pipeline_answer(stored) if stored is not None else None


def _check_static(stage: PipelineStage, model: ov.Model) -> None:
    """Each frame or region is one request of one shape: an input with sizes left dynamic besides the batch needs
    them from the stage's `shape` (said in the pipeline file's words, before anything is measured)."""
    for port in model.inputs:
        name = port.get_any_name()
        given = next((dims for n, dims in stage.shape if n in port.get_names()), None)
        shape = ov.PartialShape(list(given)) if given else port.get_partial_shape()
        if any(d.is_dynamic for d in list(shape)[1:]):
            example = ", ".join(example_dims(shape, 0, 1))
            raise BadInputError(f"stage '{stage.name}': input {name}{shape_text(shape)} has dynamic sizes besides "
                                f"the batch; give them in its [[stage]], e.g. shape = {{ {name} = [{example}] }}")


def _solo_answer(deployed: Deployed | None) -> SoloAnswer:
    """A stage's solo setting from its answer file: the best batch-1 point it deploys (read_pipeline refused a file
    without one), and how its INT8 IR was made."""
    return None if deployed is None else (deployed.batch_one[0], deployed.quantization)
