"""Tune a pipeline: each stage's solo setting (its sweep's answer, or measured here alone), the split search of
ov_tuner.search.pipeline, then the answer and both baselines side by side in rounds. Every trial is stored as soon as
it ends, and a rerun of the same command resumes: the policy reads the stored trials and names what comes next.
"""

from __future__ import annotations

import math
import os
import statistics
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import openvino as ov

from ov_tuner.devices.decisions import auto_streams
from ov_tuner.devices.environment import environment
from ov_tuner.devices.modelfile import example_dims, model_files, open_model_source, shape_text
from ov_tuner.devices.native import PointFailure
from ov_tuner.devices.runtime import Runtime
from ov_tuner.errors import BadInputError
from ov_tuner.jobs.configs import default_precision
from ov_tuner.jobs.deployed import Deployed
from ov_tuner.jobs.irs import Quantizing, job_compiler
from ov_tuner.jobs.pipeline_compiler import SplitCompiler
from ov_tuner.jobs.pipeline_file import read_pipeline
from ov_tuner.measure.frames import check_counted_output
from ov_tuner.measure.openloop import Arrivals
from ov_tuner.measure.pipeline import run_pipeline_trial
from ov_tuner.schema import (
    OPENVINO_DEFAULT,
    Arrival,
    DeviceInfo,
    LoadTrial,
    Pipeline,
    PipelineStage,
    PipelineTrial,
    PointResult,
    Precision,
    Quantization,
    SoloPoint,
    Split,
    StageSetting,
)
from ov_tuner.search.pipeline import (
    PER_STREAM,
    Origin,
    SplitSpace,
    next_exhaustive,
    next_in_round,
    next_trial,
    round_capacity,
    round_contenders,
    search_trials,
    seeds,
    split_capacity,
    split_space,
)
from ov_tuner.search.rate import held_rate, next_rate, round_held
from ov_tuner.search.rounds import RoundLimits, run_rounds
from ov_tuner.store.destinations import results_file
from ov_tuner.store.results import ResultStore

# Passes over the solo settings of a stage measured here (interleaved, the median FPS counts).
SOLO_PASSES = 2
# Rounds every contender takes before the sequential rule may stop one.
ROUNDS_FOR_ALL = 3


@dataclass(frozen=True)
class PipelineSpec:
    """A pipeline file to tune into a results file `out`: `seconds` of arrivals counted per trial after `lead_in_s`
    that are not, `rounds` head-to-head rounds, at most `max_trials` trials of the climb, `solo_s` seconds per solo
    window. `space` narrows the splits tried (None: every split of ov_tuner.search.pipeline.split_space); `exhaustive`
    tries them all, each searched whole, instead of climbing from the starting points."""

    file: Path
    out: Path
    seconds: float = 3.0
    lead_in_s: float = 1.0
    rounds: int = 5
    max_trials: int = 60
    solo_s: float = 1.0
    space: SplitSpace | None = None
    exhaustive: bool = False  # try every split of the space (for scripts/bench_pipeline.py), not the climb


@dataclass(frozen=True)
class Tuning:
    """What the search starts from: the pipeline with each stage's precision resolved, the split space and the
    starting points (each stage's solo setting is in the solo-tuned one)."""

    pipeline: Pipeline
    space: SplitSpace
    starts: tuple[tuple[Split, Origin], ...]


TrialSeen = Callable[[Pipeline, PipelineTrial], None]
SoloSeen = Callable[[PipelineStage, SoloPoint], None]


def run_pipeline(spec: PipelineSpec, on_trial: TrialSeen | None = None, on_solo: SoloSeen | None = None,
                 stop: threading.Event | None = None, quantizing: Quantizing | None = None) -> Tuning | None:
    """Tune `spec.file`'s pipeline into `spec.out`; `stop` set ends it after the trial in progress (what was
    measured is kept; None when it ended before the search's starting points were known)."""
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
    compilers = [job_compiler(runtime, source, answer[1] if answer else None, stage.shapes, quantizing)
                 for stage, source, answer in zip(pipeline.stages, sources, answers, strict=True)]
    compiler = SplitCompiler(pipeline, compilers, [devices[s.device] for s in pipeline.stages])
    with ResultStore(spec.out) as store:
        store.claim(environment(open_model_source(Path(pipeline.stages[0].model))))
        store.claim_pipeline(pipeline)
        try:
            tuning = _tuning(spec, pipeline, answers, compiler, store=store, on_solo=on_solo, stop=stop)
            if tuning is None:
                return None
            trials = store.pipeline_trials()
            while not _stopped(stop):
                step = (next_exhaustive(trials, tuning.space, pipeline.target) if spec.exhaustive else
                        next_trial(trials, tuning.starts, tuning.space, pipeline.target, spec.max_trials))
                if step is None:
                    break
                split, cameras = step
                trials.append(_trial(spec, compiler, split, cameras, round=0, seed=len(trials), store=store,
                                     on_trial=on_trial))
            if not _stopped(stop):
                _rounds(spec, tuning, trials, compiler, store=store, on_trial=on_trial, stop=stop)
        finally:
            compiler.close()
    return tuning


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


def _solo_answer(deployed: Deployed | None) -> tuple[PointResult, Quantization | None] | None:
    """A stage's solo setting from its answer file: the best batch-1 point it deploys (read_pipeline refused a file
    without one), and how its INT8 IR was made."""
    return None if deployed is None else (deployed.batch_one[0], deployed.quantization)


def _setting_of(point: PointResult) -> StageSetting:
    if not point.config.explicit:
        return OPENVINO_DEFAULT
    threads = int(dict(point.config.settings).get("INFERENCE_NUM_THREADS", 0))
    return StageSetting(point.config.streams, point.config.nireq, threads)


def _tuning(spec: PipelineSpec, pipeline: Pipeline, answers: Sequence[tuple[PointResult, Quantization | None] | None],
            compiler: SplitCompiler, store: ResultStore, on_solo: SoloSeen | None,
            stop: threading.Event | None) -> Tuning | None:
    """Each stage's solo setting and FPS alone (its answer file's, else measured here and stored), the split space
    and the starting points (stored, so a resumed search starts from the same ones); None when stopped first."""
    solo, fps = [], []
    stored = store.solo_points()
    for index, (stage, answer) in enumerate(zip(pipeline.stages, answers, strict=True)):
        if answer is not None:
            solo.append(_setting_of(answer[0]))
            fps.append(answer[0].fps)
            continue
        points = [p for p in stored if p.stage == index]
        settings = _solo_settings(compiler.devices[index])
        for _ in range(SOLO_PASSES - len(points) // len(settings)):
            for setting in settings:
                if _stopped(stop):
                    return None
                point = SoloPoint(index, setting, compiler.solo_fps(index, setting, spec.solo_s))
                store.add_solo(point)
                points.append(point)
                if on_solo is not None:
                    on_solo(stage, point)
        medians = {s: statistics.median(p.fps for p in points if p.setting == s) for s in settings}
        best = max(medians, key=lambda s: medians[s])
        solo.append(best)
        fps.append(medians[best])
    cores = os.cpu_count() or 1
    space = spec.space or split_space([s.device.split(".")[0] == "CPU" for s in pipeline.stages], cores)
    starts = store.starts()
    if not starts:
        starts = seeds(solo, [_cost(s, f) for s, f in zip(pipeline.stages, fps, strict=True)], space, cores)
        store.record_starts(starts)
    return Tuning(pipeline, space, tuple(starts))


def _cost(stage: PipelineStage, fps: float) -> float:
    """A stage's cost per frame alone: its runs per frame (at most, for a per-detection stage) over its FPS."""
    return (stage.per_detection.most if stage.per_detection else stage.per_frame) / stage.every / max(fps, 1e-9)


def _solo_settings(device: DeviceInfo) -> list[StageSetting]:
    """What a stage alone is tuned over, as a sweep would on the whole device: streams 1, 2, 4, ... up to its
    range, one or two requests per stream, the threads left to the device."""
    return [StageSetting(s, s * k) for s in auto_streams(device) for k in PER_STREAM]


def _trial(spec: PipelineSpec, compiler: SplitCompiler, split: Split, cameras: int, round: int, seed: int,
           store: ResultStore, on_trial: TrialSeen | None, fps: float | None = None) -> PipelineTrial:
    """One trial of `split` at `cameras` cameras, each offering `fps` frames a second (None: the target's), stored
    as soon as it ends."""
    pipeline = compiler.pipeline
    arrivals = Arrivals(cameras, fps or pipeline.target.fps, spec.seconds,
                        pipeline.target.arrival is Arrival.POISSON, seed=seed)
    try:
        runners, ran = compiler.split(split)
        load, stages = run_pipeline_trial(runners, pipeline.video, split.decode_threads, arrivals, pipeline.target,
                                          spec.lead_in_s)
    except PointFailure:  # a split that cannot compile serves no camera
        offered = len(arrivals.times())
        load, stages, ran = LoadTrial(cameras, spec.seconds, offered, offered, np.array([]), np.array([])), (), ()
    trial = PipelineTrial(split, load, stages, ran, round, fps)
    store.add_pipeline_trial(trial)
    if on_trial is not None:
        on_trial(pipeline, trial)
    return trial


def _rounds(spec: PipelineSpec, tuning: Tuning, trials: list[PipelineTrial], compiler: SplitCompiler,
            store: ResultStore, on_trial: TrialSeen | None, stop: threading.Event | None) -> None:
    """Up to `spec.rounds` rounds on the rounds engine (ov_tuner.search.rounds: interleaved, and a contender already
    told apart from the leader, or tied with it, stops taking rounds after the first ROUNDS_FOR_ALL). In a round a
    contender walks from what the search found to the cameras it serves, then finds how far past the target's
    frame rate it holds at that count (ov_tuner.search.rate); its figure is the frames a second that makes in all."""
    pipeline = tuning.pipeline
    contenders = round_contenders(trials, tuning.starts, pipeline.target)
    found = search_trials(trials)
    if spec.rounds < 2 or split_capacity(found[contenders[0]], pipeline.target) == 0:
        return  # no rounds asked, or nothing served one camera: there is no answer to hold against the baselines

    def measure(position: int, number: int) -> float | None:
        split = contenders[position]
        mine = [t for t in trials if t.round == number + 1 and t.split == split]
        walk = [t.load for t in mine if t.fps is None]
        rates = [(t.fps, t.load) for t in mine if t.fps is not None]
        start = split_capacity(found[split], pipeline.target)
        while (cameras := next_in_round(walk, start, pipeline.target)) is not None:
            if _stopped(stop):
                return None
            trials.append(_trial(spec, compiler, split, cameras, round=number + 1, seed=len(trials), store=store,
                                 on_trial=on_trial))
            walk.append(trials[-1].load)
        served = round_capacity(walk, pipeline.target)
        while (fps := next_rate(rates, served, pipeline.target)) is not None:
            if _stopped(stop):
                return None
            trials.append(_trial(spec, compiler, split, served, round=number + 1, seed=len(trials), store=store,
                                 on_trial=on_trial, fps=fps))
            rates.append((fps, trials[-1].load))
        return served * held_rate(rates, pipeline.target)

    def stored(split: Split, number: int) -> float:
        """A contender's figure in a round already measured (a resumed run's), NaN where it did not finish."""
        held = round_held([t for t in trials if t.round == number and t.split == split],
                          split_capacity(found[split], pipeline.target), pipeline.target)
        return math.nan if held is None else held.arrivals

    last = max((t.round for t in trials), default=0)
    done = np.array([[stored(split, number) for split in contenders] for number in range(1, last + 1)])
    limits = RoundLimits(min(ROUNDS_FOR_ALL, spec.rounds), spec.rounds)
    run_rounds(measure, [True] * len(contenders), limits, done.reshape(-1, len(contenders)), stop, log=False)


def _stopped(stop: threading.Event | None) -> bool:
    return stop is not None and stop.is_set()
