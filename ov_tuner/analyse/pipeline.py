"""The pipeline answer, from a pipeline's stored trials: the split that serves the most cameras, how many it serves
against every model at its solo-tuned setting and at OpenVINO default (measured side by side in rounds), and where a
frame's time goes. Pure; present/ words it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ov_tuner.schema import (
    Box,
    CameraTarget,
    Origin,
    Pipeline,
    PipelineTrial,
    Split,
    StageRan,
    StageSetting,
    t_quantile,
)
from ov_tuner.search.cameras import capacity, next_cameras, served
from ov_tuner.search.pipeline import (
    best_split,
    loads,
    neighbour_done,
    next_in_round,
    round_capacity,
    search_trials,
    split_capacity,
)
from ov_tuner.stats.headtohead import Ratio, paired_ratio
from ov_tuner.store.pipeline_records import StoredPipeline

# The confidence of the interval of a gain in cameras.
GAIN_CONFIDENCE = 0.95


@dataclass(frozen=True)
class Tried:
    """One split of the search: the most cameras it served (confirmed, as the camera search does), whether its
    search finished, and how many trials it took. A neighbour that failed at one camera more than the best is
    finished with the cameras it was not shown to serve beyond (0 where it served nothing)."""

    split: Split
    origin: Origin
    cameras: int
    finished: bool
    trials: int
    fails_at: int | None = None  # the fewest cameras it failed at, where it failed


@dataclass(frozen=True)
class RoundCameras:
    """One contender of the head-to-head rounds (the answer, or a baseline) and the cameras it served in each
    round, with what each stage ran."""

    split: Split
    origin: Origin | None  # None: the answer, where it is no baseline
    per_round: tuple[int, ...]
    ran: tuple[StageRan, ...]

    @property
    def mean(self) -> float:
        return sum(self.per_round) / len(self.per_round) if self.per_round else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The mean's GAIN_CONFIDENCE t interval over the rounds (NaN with fewer than two)."""
        return _t_interval(np.array(self.per_round, dtype=float))


@dataclass(frozen=True)
class CameraGain:
    """The answer against one baseline over the rounds both were measured in: the mean of the per-round difference
    in cameras with its 95% t interval, and the ratio of cameras (None where the baseline served none in a
    round)."""

    baseline: Origin
    difference: float
    low: float
    high: float
    rounds: int
    ratio: Ratio | None


@dataclass(frozen=True)
class StageShare:
    """Where a frame's time goes in one stage (the decoder first): runs per frame, mean time at work and waiting
    per run, and the share of the stage's slots at work, in the trial that overloaded the answer's split."""

    name: str
    runs_per_frame: float
    busy_ms: float
    wait_ms: float
    utilisation: float
    slots: int  # requests in flight, or decode threads

    @property
    def busy_ms_per_frame(self) -> float:
        return self.runs_per_frame * self.busy_ms

    @property
    def wait_ms_per_frame(self) -> float:
        return self.runs_per_frame * self.wait_ms


@dataclass(frozen=True)
class PipelineAnswer:
    """The pipeline's answer record: every output (terminal, report, deploy forms) renders this and computes
    nothing. `cameras` is what the search found and confirmed for `split`; `rounds` the contenders measured side by
    side (the answer first); `gains` the answer against each baseline; `shares` and `bottleneck` (a stage name,
    DECODE for the decoder) come from the trial at `overloaded_at` cameras (the fewest the answer failed, else its
    last trial)."""

    pipeline: Pipeline
    split: Split
    ran: tuple[StageRan, ...]
    cameras: int
    finished: bool
    rounds: tuple[RoundCameras, ...]
    gains: tuple[CameraGain, ...]
    shares: tuple[StageShare, ...]
    bottleneck: str
    overloaded_at: int
    tried: tuple[Tried, ...]
    solo: tuple[StageSetting, ...]
    box: Box | None


def pipeline_answer(stored: StoredPipeline) -> PipelineAnswer | None:
    """The answer record of a stored pipeline; None before any search trial."""
    trials, target = stored.trials, stored.pipeline.target
    best = best_split(trials, target)
    if best is None:
        return None
    origins = dict(stored.starts)
    by_split = search_trials(trials)
    tried = tuple(_tried(split, origins.get(split, Origin.NEIGHBOUR), ts, target) for split, ts in by_split.items())
    answer = next(t for t in tried if t.split == best)
    mine = [t for t in trials if t.split == best]
    ran = next((t.ran for t in reversed(mine) if t.ran), ())
    rounds = _rounds(trials, best, stored.starts, target)
    gains = tuple(_gain(rounds[0], r) for r in rounds[1:] if r.origin is not None)
    overloaded = _overloaded(mine, target)
    shares = _shares(overloaded)
    bottleneck = max(shares, key=lambda s: (s.utilisation, s.wait_ms)).name if shares else ""
    solo = next((s.stages for s, o in stored.starts if o is Origin.SOLO), ())
    return PipelineAnswer(stored.pipeline, best, ran, answer.cameras, answer.finished, rounds, gains, shares,
                          bottleneck, overloaded.load.cameras, tried, solo, stored.environment.box)


def _tried(split: Split, origin: Origin, trials: Sequence[PipelineTrial], target: CameraTarget) -> Tried:
    found = loads(trials)
    finished = (neighbour_done(found, target) if origin is Origin.NEIGHBOUR
                else next_cameras(found, target) is None)
    outcome = served(found, target)
    fails_at = min((k for k, ok in outcome.items() if not ok), default=None)
    return Tried(split, origin, capacity(found, target), finished, len(trials), fails_at)


def _rounds(trials: Sequence[PipelineTrial], best: Split, starts: Sequence[tuple[Split, Origin]],
            target: CameraTarget) -> tuple[RoundCameras, ...]:
    """The answer, then each baseline, with the cameras served in every round each finished its walk in (a
    baseline that is the answer's own split shares its rounds)."""
    slots = [(best, None), *((s, o) for s, o in starts if o in (Origin.SOLO, Origin.DEFAULT))]
    numbers = sorted({t.round for t in trials if t.round > 0})
    found = search_trials(trials)
    result = []
    for split, origin in slots:
        start = split_capacity(found.get(split, []), target)
        per_round = []
        for number in numbers:
            walk = loads([t for t in trials if t.round == number and t.split == split])
            if walk and next_in_round(walk, start, target) is None:
                per_round.append(round_capacity(walk, target))
        ran = next((t.ran for t in reversed(trials) if t.split == split and t.ran), ())
        result.append(RoundCameras(split, origin, tuple(per_round), ran))
    return tuple(result)


def _gain(answer: RoundCameras, baseline: RoundCameras) -> CameraGain:
    """Paired by round (the rounds both finished, in order)."""
    assert baseline.origin is not None
    n = min(len(answer.per_round), len(baseline.per_round))
    a = np.array(answer.per_round[:n], dtype=float)
    b = np.array(baseline.per_round[:n], dtype=float)
    difference = a - b
    mean = float(difference.mean()) if n else math.nan
    low, high = _t_interval(difference)
    ratio = paired_ratio(a, b, GAIN_CONFIDENCE) if n >= 2 and np.all(b > 0) and np.all(a > 0) else None
    return CameraGain(baseline.origin, mean, low, high, n, ratio)


def _t_interval(values: np.ndarray) -> tuple[float, float]:
    n = values.size
    if n < 2:
        return math.nan, math.nan
    mean = float(values.mean())
    half = t_quantile(n - 1, GAIN_CONFIDENCE) * float(values.std(ddof=1)) / math.sqrt(n)
    return mean - half, mean + half


def _overloaded(trials: Sequence[PipelineTrial], target: CameraTarget) -> PipelineTrial:
    """The answer's trial at the fewest cameras it failed (the latest of them), else its last trial."""
    failed = [t for t in trials if t.stages and not t.load.serves(target) and not t.load.disturbed]
    if not failed:
        return trials[-1]
    fewest = min(t.load.cameras for t in failed)
    return [t for t in failed if t.load.cameras == fewest][-1]


def _shares(trial: PipelineTrial) -> tuple[StageShare, ...]:
    frames = max(trial.load.completed, 1)
    return tuple(StageShare(s.name, s.runs / frames, s.busy_ms / s.runs if s.runs else 0.0,
                            s.wait_ms / s.runs if s.runs else 0.0, s.utilisation, s.slots)
                 for s in trial.stages)
