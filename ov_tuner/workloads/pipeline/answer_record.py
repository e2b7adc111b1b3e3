"""The pipeline answer's record: the split deployed and each contender as the rounds measured it (cameras served, the
frame rate held, with their intervals), its gains over the baselines with their verdicts, where a frame's time goes,
and the harness's own figures. Built by ov_tuner.workloads.pipeline.answer; present/ words and draws it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import cached_property

import numpy as np

from ov_tuner.engine.boundary import Boundary, Window, boundary
from ov_tuner.schema import HARNESS_LIMIT, Box
from ov_tuner.stats.headtohead import RERUN_SD, Ratio
from ov_tuner.stats.interval import paired_interval
from ov_tuner.stats.settle import Settling
from ov_tuner.workloads.pipeline.schema import (
    HarnessCeiling,
    Origin,
    Pipeline,
    Split,
    StageRan,
    StageSetting,
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
    seconds: float = 0.0  # the counted seconds of its trials in those passes: what a pass of it costs, summed

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
    settle: Settling | None = None  # not told apart: about how many more passes would settle a camera's difference

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
