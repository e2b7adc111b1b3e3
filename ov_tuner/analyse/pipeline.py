"""The pipeline answer, from a pipeline's stored trials: the split that serves the most cameras, how many it serves
against every model at its solo-tuned setting and at OpenVINO default (measured side by side in rounds), and where a
frame's time goes. Pure; present/ words it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ov_tuner.schema import Box, Pipeline, Split, StageRan, StageSetting
from ov_tuner.search.pipeline import Origin
from ov_tuner.stats.headtohead import Ratio


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
