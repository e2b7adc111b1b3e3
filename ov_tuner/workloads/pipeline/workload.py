"""The pipeline as a workload of the one driver (ov_tuner.engine.driver): its search is each stage's solo setting
(its sweep's answer, or measured here alone) and then the split search of ov_tuner.workloads.pipeline.search; its
rounds put the answer and both baselines side by side in passes, each visit a walk to the cameras a split serves in
that pass and the frame rate it holds there. Every trial is stored as soon as it ends, and a rerun resumes from what is
stored.
"""

from __future__ import annotations

import math
import statistics
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ov_tuner.devices.box import read_box
from ov_tuner.devices.decisions import auto_streams
from ov_tuner.devices.native import PointFailure
from ov_tuner.engine.budget import PhasePlan
from ov_tuner.engine.driver import Rounds, Steps
from ov_tuner.engine.rounds import RoundLimits
from ov_tuner.measure.openloop import Arrivals
from ov_tuner.schema import Arrival, DeviceInfo, LoadTrial, PointResult, Quantization
from ov_tuner.workloads.pipeline.answer import pipeline_answer
from ov_tuner.workloads.pipeline.compiler import SplitCompiler
from ov_tuner.workloads.pipeline.harness import harness_ceiling
from ov_tuner.workloads.pipeline.rate import held_rate, next_rate, pass_held
from ov_tuner.workloads.pipeline.results_file import PipelineStore, stored_pipeline
from ov_tuner.workloads.pipeline.schema import (
    OPENVINO_DEFAULT,
    HarnessCeiling,
    Pipeline,
    PipelineStage,
    PipelineTrial,
    SoloPoint,
    Split,
    StageSetting,
)
from ov_tuner.workloads.pipeline.search import (
    PER_STREAM,
    Origin,
    SplitSpace,
    next_exhaustive,
    next_in_pass,
    next_trial,
    pass_capacity,
    round_contenders,
    search_trials,
    seeds,
    split_capacity,
    split_space,
)
from ov_tuner.workloads.pipeline.trial import run_pipeline_trial
from ov_tuner.workloads.pipeline.video import decode_seconds

# Passes over the solo settings of a stage measured here (interleaved, the median FPS counts).
SOLO_PASSES = 2
# Passes every contender takes before the sequential rule may stop one.
PASSES_FOR_ALL = 3
# For a plan (not limits): the contenders of the rounds (the answer and both baselines), the trials a visit of theirs
# walks (its cameras, then its rate), and the trials the search's starting points walk before the climb.
ROUND_CONTENDERS = 3
VISIT_TRIALS = 6
SEED_TRIALS = 18


@dataclass(frozen=True)
class PipelineSpec:
    """A pipeline file to tune into a results file `out`: `seconds` of arrivals counted per trial after `lead_in_s`
    that are not, `passes` passes of the head-to-head rounds, at most `max_trials` trials of the climb, `solo_s`
    seconds per solo window. `space` narrows the splits tried (None: every split of
    ov_tuner.workloads.pipeline.search.split_space); `exhaustive` tries them all, each searched whole, instead of
    climbing from the starting points."""

    file: Path
    out: Path
    seconds: float = 3.0
    lead_in_s: float = 1.0
    passes: int = 5
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
# A stage's solo setting from its answer file: the point it deploys, and how its INT8 IR was made (None: measured).
SoloAnswer = tuple[PointResult, Quantization | None] | None


@dataclass
class PipelineWorkload:
    """One pipeline's tuning while it runs: what it measures with, where trials go, what it has found."""

    spec: PipelineSpec
    answers: Sequence[SoloAnswer]
    compiler: SplitCompiler
    store: PipelineStore
    on_trial: TrialSeen | None = None
    on_solo: SoloSeen | None = None
    stop: threading.Event | None = None
    tuning: Tuning | None = None  # known once every stage's solo setting is
    trials: list[PipelineTrial] = field(default_factory=list)
    solo_fps: tuple[float, ...] = ()  # each stage's FPS alone at its solo setting, known with the tuning
    cores: int = 1
    decode_ms: float = 0.0  # a frame's decode on one thread, timed with the tuning

    def search(self) -> Steps:
        """Each stage's solo setting, then the split search from the starting points until the policy is done."""
        yield from self._tune()
        tuning, target = self.tuning, self.compiler.pipeline.target
        assert tuning is not None
        self.trials = self.store.pipeline_trials()
        while step := (next_exhaustive(self.trials, tuning.space, target) if self.spec.exhaustive else
                       next_trial(self.trials, tuning.starts, tuning.space, target, self.spec.max_trials)):
            split, cameras = step
            yield self._trial(split, cameras, pass_number=0)

    def planned(self) -> tuple[PhasePlan, PhasePlan, PhasePlan]:
        """The trials each phase has left, from what is stored, for the driver's plan and time budget: the search's
        starting points' walks and its climb (at most `max_trials`); the rounds' visits (the answer and the two
        baselines each pass, a visit walking VISIT_TRIALS trials or so; the first passes decide anything); the
        harness's one trial."""
        trials = self.store.pipeline_trials()
        searched = sum(t.pass_number == 0 for t in trials)
        visits = len({(t.split, t.pass_number) for t in trials if t.pass_number > 0})
        contenders = ROUND_CONTENDERS if self.spec.passes >= 2 else 0
        return (PhasePlan("search", max(SEED_TRIALS + self.spec.max_trials - searched, 0), 0),
                PhasePlan("rounds", max(contenders * self.spec.passes - visits, 0),
                          max(contenders * min(PASSES_FOR_ALL, self.spec.passes) - visits, 0), VISIT_TRIALS),
                PhasePlan("walks", int(self.store.harness() is None), 0))

    def rounds(self) -> AbstractContextManager[Rounds | None]:
        """Up to `spec.passes` passes of the answer and the baselines (none where none were asked for, or nothing
        served one camera). In a pass a contender walks from what the search found to the cameras it serves,
        then finds how far past the target's frame rate it holds at that count (ov_tuner.workloads.pipeline.rate);
        its figure is the frames a second that makes in all."""
        assert self.tuning is not None
        target, trials = self.compiler.pipeline.target, self.trials
        contenders = round_contenders(trials, self.tuning.starts, target)
        found = search_trials(trials)
        if self.spec.passes < 2 or split_capacity(found[contenders[0]], target) == 0:
            return nullcontext(None)

        def visit(position: int, number: int) -> float | None:
            split = contenders[position]
            mine = [t for t in trials if t.pass_number == number + 1 and t.split == split]
            walk = [t.load for t in mine if t.fps is None]
            rates = [(t.fps, t.load) for t in mine if t.fps is not None]
            start = split_capacity(found.get(split, []), target)  # a baseline the budget left unsearched: 0
            while (cameras := next_in_pass(walk, start, target)) is not None:
                if self._stopped():
                    return None
                walk.append(self._trial(split, cameras, pass_number=number + 1).load)
            served = pass_capacity(walk, target)
            while (fps := next_rate(rates, served, target)) is not None:
                if self._stopped():
                    return None
                rates.append((fps, self._trial(split, served, pass_number=number + 1, fps=fps).load))
            return served * held_rate(rates, target)

        def stored(split: Split, number: int) -> float:
            """A contender's figure in a pass already measured (a resumed run's), NaN where it did not finish."""
            held = pass_held([t for t in trials if t.pass_number == number and t.split == split],
                              split_capacity(found.get(split, []), target), target)
            return math.nan if held is None else held.arrivals

        last = max((t.pass_number for t in trials), default=0)
        done = np.array([[stored(split, number) for split in contenders] for number in range(1, last + 1)])
        limits = RoundLimits(min(PASSES_FOR_ALL, self.spec.passes), self.spec.passes)
        return nullcontext(Rounds(visit, [True] * len(contenders), limits, done.reshape(-1, len(contenders)),
                                  log=False))

    def walks(self) -> Steps:
        """The load harness's own ceiling at the answer's split, and the device's bound beside it, once (the rounds'
        visits are the pipeline's walks): so the answer can say whether ov-tuner or the device set its figure."""
        if self.store.harness() is not None or self._stopped():
            return
        stored = stored_pipeline(self.store)
        answer = None if stored is None else pipeline_answer(stored)
        if answer is None or answer.cameras < 1:
            return
        pipeline = self.compiler.pipeline
        at = [t for t in self.trials if t.split == answer.split and t.stages and t.load.cameras == answer.cameras]
        if not at:
            return
        frames = max(at[-1].stages[0].runs, 1)
        runs = tuple(s.runs / frames for s in at[-1].stages[1:])
        detections = [round(runs[i + 1]) if i + 1 < len(runs) else 0 for i in range(len(runs))]
        runners, _ = self.compiler.split(answer.split)
        carried = harness_ceiling(runners, pipeline.video, answer.split.decode_threads, answer.cameras,
                                  pipeline.target.fps, detections)
        ceiling = HarnessCeiling(answer.split, answer.cameras, carried.frames_per_s, carried.reached,
                                 decode_ms=self.decode_ms, runs_per_frame=runs, solo_fps=self.solo_fps,
                                 cores=self.cores)
        self.store.record_harness(ceiling)
        yield ceiling

    def _tune(self) -> Steps:
        """Each stage's solo setting and FPS alone (its answer file's, else measured here and stored), the split
        space and the starting points (stored, so a resumed search starts from the same ones)."""
        pipeline, store = self.compiler.pipeline, self.store
        solo, fps = [], []
        stored = store.solo_points()
        for index, (stage, answer) in enumerate(zip(pipeline.stages, self.answers, strict=True)):
            if answer is not None:
                solo.append(_setting_of(answer[0]))
                fps.append(answer[0].fps)
                continue
            points = [p for p in stored if p.stage == index]
            settings = _solo_settings(self.compiler.devices[index])
            for _ in range(SOLO_PASSES - len(points) // len(settings)):
                for setting in settings:
                    point = SoloPoint(index, setting, self.compiler.solo_fps(index, setting, self.spec.solo_s))
                    store.add_solo(point)
                    points.append(point)
                    if self.on_solo is not None:
                        self.on_solo(stage, point)
                    yield point
            medians = {s: statistics.median(p.fps for p in points if p.setting == s) for s in settings}
            best = max(medians, key=lambda s: medians[s])
            solo.append(best)
            fps.append(medians[best])
        self.solo_fps = tuple(fps)
        self.cores = cores = max(1, int(read_box().cpus))  # the cpuset and the quota, not the host's CPUs
        self.decode_ms = decode_seconds(pipeline.video) * 1000
        space = self.spec.space or split_space([s.device.split(".")[0] == "CPU" for s in pipeline.stages], cores)
        starts = store.starts()
        if not starts:
            starts = seeds(solo, [_cost(s, f) for s, f in zip(pipeline.stages, fps, strict=True)], space, cores,
                           self.decode_ms / 1000 / cores)
            store.record_starts(starts)
        self.tuning = Tuning(pipeline, space, tuple(starts))

    def _trial(self, split: Split, cameras: int, pass_number: int, fps: float | None = None) -> PipelineTrial:
        """One trial of `split` at `cameras` cameras, each offering `fps` frames a second (None: the target's),
        stored as soon as it ends."""
        pipeline, spec = self.compiler.pipeline, self.spec
        rate = fps or pipeline.target.fps
        seconds = replace(pipeline.target, fps=rate).window_s(cameras, spec.seconds)
        arrivals = Arrivals(cameras, rate, seconds, pipeline.target.arrival is Arrival.POISSON, seed=len(self.trials))
        try:
            runners, ran = self.compiler.split(split)
            load, stages = run_pipeline_trial(runners, pipeline.video, split.decode_threads, arrivals,
                                              pipeline.target, spec.lead_in_s)
        except PointFailure:  # a split that cannot compile serves no camera
            offered = len(arrivals.times())
            load, stages, ran = LoadTrial(cameras, seconds, offered, offered, np.array([]), np.array([])), (), ()
        trial = PipelineTrial(split, load, stages, ran, pass_number, fps)
        self.store.add_pipeline_trial(trial)
        self.trials.append(trial)
        if self.on_trial is not None:
            self.on_trial(pipeline, trial)
        return trial

    def _stopped(self) -> bool:
        return self.stop is not None and self.stop.is_set()


def _setting_of(point: PointResult) -> StageSetting:
    if not point.config.explicit:
        return OPENVINO_DEFAULT
    threads = int(dict(point.config.settings).get("INFERENCE_NUM_THREADS", 0))
    return StageSetting(point.config.streams, point.config.nireq, threads)


def _cost(stage: PipelineStage, fps: float) -> float:
    """A stage's cost per frame alone: its runs per frame (at most, for a per-detection stage) over its FPS."""
    return (stage.per_detection.most if stage.per_detection else stage.per_frame) / stage.every / max(fps, 1e-9)


def _solo_settings(device: DeviceInfo) -> list[StageSetting]:
    """What a stage alone is tuned over, as a sweep would on the whole device: streams 1, 2, 4, ... up to its
    range, one or two requests per stream, the threads left to the device."""
    return [StageSetting(s, s * k) for s in auto_streams(device) for k in PER_STREAM]
