"""The pipeline answer, from a pipeline's stored trials: the split to deploy, how many cameras it serves against
every model at its solo-tuned setting and at OpenVINO default (measured side by side in passes), and where a frame's
time goes. Pure; present/ words it.

Which contender is deployed: the simplest that no other is shown to beat (Verdict.MORE, on the intervals of the
cameras and of the frames a second held, paired by pass): every model at OpenVINO default, then every model at its
solo answer, then the search's split. The simpler is kept until the dearer is shown faster, so two contenders the
rounds cannot tell apart give the same answer on every run, where the one holding more in the point estimate changed
from run to run; the rounds' leader against the answer is stated with its interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property

import numpy as np

from ov_tuner.engine.boundary import Boundary, Window, boundary
from ov_tuner.engine.cameras import SEARCH_WALK, capacity, next_cameras, served, windows
from ov_tuner.schema import HARNESS_LIMIT, Box, CameraTarget
from ov_tuner.stats.headtohead import RERUN_SD, Ratio, paired_ratio
from ov_tuner.stats.interval import paired_interval, pass_adjusted_means
from ov_tuner.workloads.pipeline.rate import pass_held
from ov_tuner.workloads.pipeline.results_file import StoredPipeline
from ov_tuner.workloads.pipeline.schema import (
    HarnessCeiling,
    Origin,
    Pipeline,
    PipelineTrial,
    Split,
    StageRan,
    StageSetting,
)
from ov_tuner.workloads.pipeline.search import (
    best_split,
    loads,
    neighbour_done,
    search_trials,
    split_capacity,
)

# The confidence of the interval of a gain in cameras.
GAIN_CONFIDENCE = 0.95
# The contenders of the rounds, simplest first: the order the deploy rule keeps (None: the search's split).
SIMPLER_FIRST: tuple[Origin | None, ...] = (Origin.DEFAULT, Origin.SOLO, None)


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

    @property
    def probe_failed(self) -> bool:
        """A neighbour that failed the one count it was tried at (above one camera): its figure is that count, an
        upper bound, not cameras served."""
        return self.cameras == 0 and self.fails_at is not None and self.fails_at > 1


@dataclass(frozen=True)
class RoundCameras:
    """One contender of the head-to-head rounds (the answer, or a baseline) and the cameras it served in each
    pass, with what each stage ran; `per_pass_fps`, where its passes found it, the highest frame rate per camera
    it held at those cameras (ov_tuner.workloads.pipeline.rate): the finer figure that tells apart splits serving
    the same count; `windows`, every window of its camera walks at the target's rate in those passes, pooled."""

    split: Split
    origin: Origin | None  # None: the answer, where it is no baseline
    per_pass: tuple[int, ...]
    ran: tuple[StageRan, ...]
    per_pass_fps: tuple[float, ...] = ()
    numbers: tuple[int, ...] = ()  # the passes these figures come from (a contender stopped early skips the later)
    windows: tuple[Window, ...] = ()

    @property
    def mean(self) -> float:
        return sum(self.per_pass) / len(self.per_pass) if self.per_pass else 0.0

    @property
    def median(self) -> int:
        """The cameras it served in the middle pass (the lower middle of an even count)."""
        return sorted(self.per_pass)[(len(self.per_pass) - 1) // 2] if self.per_pass else 0

    @cached_property
    def walked(self) -> Boundary | None:
        """What its passes' camera windows say pooled, on the one capacity walk's rules (ov_tuner.engine.boundary):
        the most cameras they mostly served, with an interval that carries a rerun's spread. Why pooled: a pass
        walks each count once, so the median of the passes moved with single windows at the edge (the demo's default
        split read 5, 6 and 4 cameras in three runs, 6 outside the third's 3.6..5.4); pooled, no single window sets
        it. None where no window was kept (a file written before they were)."""
        return boundary(self.windows) if self.windows else None

    @property
    def cameras(self) -> int:
        """The headline: the pooled windows' figure, else the median of its passes."""
        return int(self.walked.served) if self.walked is not None else self.median

    @property
    def arrivals(self) -> np.ndarray:
        """Per pass, the frames a second it held in all within the percentile: cameras x the rate each held."""
        return np.array(self.per_pass, dtype=float) * np.array(self.per_pass_fps, dtype=float)

    def _held_at_headline(self) -> list[float]:
        return [f for c, f in zip(self.per_pass, self.per_pass_fps, strict=True) if c == self.cameras]

    @property
    def fps_at_headline(self) -> float | None:
        """The mean frame rate per camera it held in the passes that served the headline count; None where the
        passes found none."""
        held = self._held_at_headline()
        return sum(held) / len(held) if held else None

    @property
    def held_interval(self) -> tuple[float, float] | None:
        """The GAIN_CONFIDENCE interval of the frame rate per camera held in the passes that served the headline
        count, widened by the rerun spread (RERUN_SD), as a gain's is: the finer figure's, never zero-wide where
        every pass held the same rate (None with fewer than two such passes)."""
        held = np.array(self._held_at_headline())
        if held.size < 2:
            return None
        found = paired_interval(held, confidence=GAIN_CONFIDENCE, log=True, rerun_sd=RERUN_SD)
        return found.low, found.high

    @property
    def frames_held(self) -> tuple[float, float, float] | None:
        """The frames a second it held in all within the percentile, over every pass (whatever count each served):
        the mean and its GAIN_CONFIDENCE interval, widened by the rerun spread, as a gain's is. The figure a rerun
        compares with: where runs served 5, 6 and 4 cameras at 17.2, 15.0 and 21.0 FPS each, it read 86-90 frames/s
        in all every time. None with fewer than two passes."""
        if len(self.per_pass_fps) < 2:
            return None
        found = paired_interval(self.arrivals, confidence=GAIN_CONFIDENCE, log=True, rerun_sd=RERUN_SD)
        return found.value, found.low, found.high

    @property
    def interval(self) -> tuple[float, float]:
        """The mean's GAIN_CONFIDENCE t interval over the passes (NaN with fewer than two)."""
        found = paired_interval(np.array(self.per_pass, dtype=float), confidence=GAIN_CONFIDENCE)
        return found.low, found.high


class Verdict(str, Enum):
    """The one decision of a comparison with a baseline, made here from the figures its words state."""

    MORE = "more"  # every figure stated says more, its interval clear of no change
    FEWER = "fewer"  # every figure stated says fewer
    NOT_APART = "not told apart"  # no figure's interval excludes no change
    SPLIT = "figures disagree"  # one figure's interval excludes no change and another's does not: not told apart
    TOO_FEW = "too few passes"  # fewer than two passes side by side finished: no interval to judge on

    @property
    def told_apart(self) -> bool:
        return self in (Verdict.MORE, Verdict.FEWER)


@dataclass(frozen=True)
class CameraGain:
    """The answer against one baseline over the passes both were measured in: the mean of the per-pass difference
    in cameras with its 95% t interval (NaN with fewer than two passes), the ratio of cameras (None where the baseline
    served none in a pass), the ratio of the frames a second each held in all within the percentile (`arrivals`,
    paired by pass, with an interval that covers a rerun: the finer figure, never zero-wide by rounding), and the
    `verdict` those figures give together."""

    baseline: Origin
    difference: float
    low: float
    high: float
    passes: int
    ratio: Ratio | None
    arrivals: Ratio | None = None
    verdict: Verdict = Verdict.TOO_FEW

    @property
    def cameras_clear(self) -> bool:
        """The cameras' interval excludes 0."""
        return self.passes >= 2 and (self.low > 0 or self.high < 0)


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
class HarnessFigures:
    """The answer's frames a second beside what ov-tuner's load harness carries at its split and the device's bound:
    `limited` where it comes within HARNESS_LIMIT of a ceiling that was reached, so the harness, not the device, may
    have set it."""

    ceiling: HarnessCeiling
    served_frames_per_s: float

    @property
    def share(self) -> float:
        return self.served_frames_per_s / self.ceiling.frames_per_s if self.ceiling.frames_per_s else float("inf")

    @property
    def share_of_bound(self) -> float:
        return self.served_frames_per_s / self.ceiling.bound_frames_per_s

    @property
    def limited(self) -> bool:
        return self.ceiling.reached and self.share >= HARNESS_LIMIT


@dataclass(frozen=True)
class PipelineAnswer:
    """The pipeline's answer record: every output (terminal, report, deploy forms) renders this and computes
    nothing. `split` is the contender the deploy rule keeps (the simplest no other is shown to serve more than; the
    search's best where no pass finished), and `cameras` its headline: what its passes' windows say pooled
    (`from_rounds`; RoundCameras.walked holds the interval), else what the search found and confirmed; `rounds` the
    contenders measured side by side (the answer first, its origin None); `gains` the answer against each baseline;
    `shares` and `bottleneck` (a stage name, DECODE for the decoder) come from the trial at `overloaded_at` cameras
    (the fewest the answer failed, else its last trial); `harness` the answer's frames a second beside the load
    harness's ceiling and the device's bound."""

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
    from_rounds: bool = False
    harness: HarnessFigures | None = None  # measured after the rounds at the answer's split
    leader: RoundCameras | None = None  # the rounds' leader, where the deploy rule kept a simpler contender
    leader_gain: CameraGain | None = None  # the leader against the answer (not told apart: the rule kept the answer)

    @property
    def unservable(self) -> bool:
        """The search finished and no split served one camera within the budget: nothing to deploy."""
        return self.cameras == 0 and self.finished


def pipeline_answer(stored: StoredPipeline) -> PipelineAnswer | None:
    """The answer record of a stored pipeline; None before any search trial."""
    trials, target = stored.trials, stored.pipeline.target
    best = best_split(trials, target)
    if best is None:
        return None
    origins = dict(stored.starts)
    by_split = search_trials(trials)
    tried = tuple(_tried(split, origins.get(split, Origin.NEIGHBOUR), ts, target) for split, ts in by_split.items())
    measured = _round_figures(trials, best, stored.starts, target)
    held = _held(measured)
    leading = max(range(len(measured)), key=lambda i: (held[i], measured[i].origin is None))
    kept = deployed(measured, held, origins)
    answer_round = measured[leading if kept is None else kept]
    from_rounds = len(answer_round.per_pass) > 0
    split = answer_round.split if from_rounds else best
    searched = next(t for t in tried if t.split == split)
    mine = [t for t in trials if t.split == split]
    ran = next((t.ran for t in reversed(mine) if t.ran), ())
    chosen = answer_round if from_rounds else measured[0]
    others = [_named(r, origins) for r in measured if r.origin is not None or r.split != chosen.split]
    rounds = (replace(chosen, origin=None), *others)
    gains = tuple(_gain(rounds[0], r) for r in rounds[1:] if r.origin in (Origin.SOLO, Origin.DEFAULT))
    overloaded = _overloaded(mine, target)
    shares = _shares(overloaded)
    bottleneck = max(shares, key=lambda s: (s.utilisation, s.wait_ms)).name if shares else ""
    solo = next((s.stages for s, o in stored.starts if o is Origin.SOLO), ())
    cameras = rounds[0].cameras if from_rounds else searched.cameras
    rate = rounds[0].fps_at_headline if from_rounds else None
    served = cameras * (rate if rate is not None else target.fps)
    harness = (HarnessFigures(stored.harness, served) if stored.harness is not None and stored.harness.split == split
               else None)
    leader = _named(measured[leading], origins) if measured[leading].split != split else None
    leader_gain = None if leader is None else _gain(leader, _named(answer_round, origins))
    return PipelineAnswer(pipeline=stored.pipeline, split=split, ran=ran, cameras=cameras, finished=searched.finished,
                          harness=harness, rounds=rounds, gains=gains, shares=shares, bottleneck=bottleneck,
                          overloaded_at=overloaded.load.cameras, tried=tried, solo=solo, box=stored.environment.box,
                          from_rounds=from_rounds, leader=leader, leader_gain=leader_gain)


def deployed(measured: Sequence[RoundCameras], held: Sequence[float], origins: dict[Split, Origin]) -> int | None:
    """The index of the simplest contender (SIMPLER_FIRST) that no other beats (Verdict.MORE) over the passes both
    finished; None where fewer than two contenders finished two passes (the leader then stands alone)."""
    finished = [i for i, r in enumerate(measured) if held[i] >= 0 and len(r.per_pass) >= 2]
    if len(finished) < 2:
        return None
    for i in sorted(finished, key=lambda i: SIMPLER_FIRST.index(measured[i].origin)):
        mine = _named(measured[i], origins)
        if not any(_gain(_named(measured[j], origins), mine).verdict is Verdict.MORE for j in finished if j != i):
            return i
    return max(finished, key=lambda i: held[i])  # every one beaten by another: not transitive, the leader


def _named(contender: RoundCameras, origins: dict[Split, Origin]) -> RoundCameras:
    """`contender` with the origin its split was searched from, where it is the search's split (origin None)."""
    if contender.origin is not None:
        return contender
    return replace(contender, origin=origins.get(contender.split, Origin.NEIGHBOUR))


def _held(measured: Sequence[RoundCameras]) -> list[float]:
    """What the answer is chosen on, per contender: the frames a second it held in all over the passes, as the
    rounds engine ranks them (pass-adjusted means: a contender that stopped early is scaled by the passes it shared
    with the one that took the most); -1 before its passes found one."""
    numbers = sorted({n for r in measured for n in r.numbers})
    table = np.full((len(numbers), len(measured)), np.nan)
    for j, contender in enumerate(measured):
        for number, figure in zip(contender.numbers, contender.arrivals, strict=True):
            table[numbers.index(number), j] = figure
    means = pass_adjusted_means(table, log=False) if numbers else np.full(len(measured), np.nan)
    return [float(m) if np.isfinite(m) else -1.0 for m in means]


def _tried(split: Split, origin: Origin, trials: Sequence[PipelineTrial], target: CameraTarget) -> Tried:
    found = loads(trials)
    finished = (neighbour_done(found, target) if origin is Origin.NEIGHBOUR
                else next_cameras(found, target, SEARCH_WALK) is None)
    outcome = served(found, target)
    fails_at = min((k for k, ok in outcome.items() if not ok), default=None)
    return Tried(split, origin, capacity(found, target), finished, len(trials), fails_at)


def _round_figures(trials: Sequence[PipelineTrial], best: Split, starts: Sequence[tuple[Split, Origin]],
                   target: CameraTarget) -> tuple[RoundCameras, ...]:
    """What the rounds stored, read back (the rounds engine ran them): the search's best (origin None), then each
    baseline, with the cameras served in every pass each finished its walk in and the rate it held there where its
    rate search finished too (a baseline that is the best's own split shares its passes)."""
    slots = [(best, None), *((s, o) for s, o in starts if o in (Origin.SOLO, Origin.DEFAULT))]
    numbers = sorted({t.pass_number for t in trials if t.pass_number > 0})
    found = search_trials(trials)
    result = []
    for split, origin in slots:
        start = split_capacity(found.get(split, []), target)
        held = [(number, pass_held([t for t in trials if t.pass_number == number and t.split == split], start, target))
                for number in numbers]
        kept = [(number, h) for number, h in held if h is not None]
        ran = next((t.ran for t in reversed(trials) if t.split == split and t.ran), ())
        finished = {number for number, _ in kept}
        walks = [t.load for t in trials if t.pass_number in finished and t.split == split and t.fps is None]
        result.append(RoundCameras(split, origin, tuple(h.cameras for _, h in kept), ran,
                                   per_pass_fps=tuple(h.fps for _, h in kept),
                                   numbers=tuple(number for number, _ in kept), windows=tuple(windows(walks, target))))
    return tuple(result)


def _gain(answer: RoundCameras, baseline: RoundCameras) -> CameraGain:
    """Paired by pass: over the passes both finished (the test data of an older file, which numbered none, pair
    in order)."""
    assert baseline.origin is not None
    a, b = _paired(answer, baseline, answer.per_pass), _paired(baseline, answer, baseline.per_pass)
    cameras = paired_interval(a, b, GAIN_CONFIDENCE)
    positive = a.size >= 2 and bool(np.all(a > 0) and np.all(b > 0))
    ratio = paired_ratio(a, b, GAIN_CONFIDENCE) if positive else None
    mine, theirs = _paired(answer, baseline, answer.arrivals), _paired(baseline, answer, baseline.arrivals)
    held = mine.size >= 2 and bool(np.all(mine > 0) and np.all(theirs > 0))
    arrivals = paired_ratio(mine, theirs, GAIN_CONFIDENCE) if held else None
    gain = CameraGain(baseline=baseline.origin, difference=cameras.value, low=cameras.low, high=cameras.high,
                      passes=cameras.n, ratio=ratio, arrivals=arrivals)
    return replace(gain, verdict=verdict(gain))


def verdict(gain: CameraGain) -> Verdict:
    """More or fewer only where every figure stated (the cameras, and the frames a second held where the passes found
    them) excludes no change, in the same direction; SPLIT where they disagree."""
    if gain.passes < 2:
        return Verdict.TOO_FEW
    signs = [(gain.low > 0) - (gain.high < 0)]
    if gain.arrivals is not None:
        signs.append((gain.arrivals.low > 1) - (gain.arrivals.high < 1))
    if all(s == 1 for s in signs):
        return Verdict.MORE
    if all(s == -1 for s in signs):
        return Verdict.FEWER
    return Verdict.NOT_APART if not any(signs) else Verdict.SPLIT


def _paired(contender: RoundCameras, other: RoundCameras, figures: Sequence[float] | np.ndarray) -> np.ndarray:
    """`contender`'s figures in the passes `other` finished too, in pass order."""
    values = np.asarray(figures, dtype=float)
    if not contender.numbers or not other.numbers:
        return values[:min(len(contender.per_pass), len(other.per_pass))]
    return values[[i for i, n in enumerate(contender.numbers) if n in other.numbers]]


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
