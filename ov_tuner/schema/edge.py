"""Edge records: open-loop load from cameras (capacity) and long runs of one configuration (soak)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from ov_tuner.schema.config import PointConfig
from ov_tuner.schema.measurement import FOREIGN_CPU_LIMIT, STEAL_LIMIT, LatencyStats, Window

if TYPE_CHECKING:  # numpy loads where a method computes: the command line imports schema for --help
    import numpy as np

# A camera count serves when the latency at the target percentile of every frame offered stayed within the budget
# (a dropped frame counts as infinitely late: p99 within 100 ms means 99% of the frames arrived within 100 ms),
# and the frames completed came to this share of those offered (DL Streamer's and intel-retail's stream-density
# tools pass a stream at 95% of its target rate).
PASS_RATIO = 0.95

# The frames beyond the percentile a window must hold, at the least: a p99 read from 30 frames (one camera at 15 FPS
# for 2 s) is the slowest frame's figure, so a low load was judged from one frame. With one frame beyond it, the
# window holds 100 frames at p99 (MLPerf LoadGen likewise sets a minimum query count beside its minimum duration).
TAIL_FRAMES = 1


class Arrival(str, Enum):
    """How a camera's frames arrive: at a constant interval, or as a Poisson process at the same mean rate."""

    CONSTANT = "constant"
    POISSON = "poisson"


@dataclass(frozen=True)
class CameraTarget:
    """What each camera needs: `fps` frames per second, with `percentile` latency from arrival within
    `max_latency_ms`."""

    fps: float
    max_latency_ms: float
    percentile: float = 99.0
    arrival: Arrival = Arrival.CONSTANT

    def __post_init__(self) -> None:
        if self.fps <= 0 or self.max_latency_ms <= 0 or not 0 < self.percentile < 100:
            raise ValueError("fps and max_latency_ms must be > 0 and percentile within (0, 100)")

    def window_s(self, cameras: int, seconds: float) -> float:
        """A window's seconds at `cameras` cameras: at least `seconds`, and long enough to offer the frames a reading
        at the percentile needs (TAIL_FRAMES beyond it), so a low load is never judged from one slow frame."""
        least = math.ceil(TAIL_FRAMES / (1 - self.percentile / 100) - 1e-9)
        return max(seconds, least / (max(cameras, 1) * self.fps))


@dataclass(frozen=True)
class LoadTrial:
    """One open-loop run at `cameras` cameras for `seconds` of arrivals (the lead-in's frames not counted).

    `latencies_ms` run from each completed frame's arrival to its completion (what a camera sees, queueing
    included); `service_ms` are the same frames' requests' own timers.
    """

    cameras: int
    seconds: float
    offered: int
    dropped: int
    latencies_ms: np.ndarray
    service_ms: np.ndarray
    foreign_cpu: float | None = None  # other processes' share of all CPUs meanwhile (see ov_tuner.measure.host)
    steal: float | None = None

    @property
    def completed(self) -> int:
        return int(self.latencies_ms.size)

    @property
    def disturbed(self) -> bool:
        """Measured while other processes or the hypervisor took the CPUs (the limits of a measurement window)."""
        return (self.foreign_cpu or 0.0) > FOREIGN_CPU_LIMIT or (self.steal or 0.0) > STEAL_LIMIT

    @property
    def achieved_fps(self) -> float:
        return self.completed / self.seconds

    @property
    def latency(self) -> LatencyStats | None:
        return LatencyStats.of(self.latencies_ms) if self.completed else None

    def percentile_ms(self, percentile: float) -> float:
        """The latency `percentile` of every frame offered, a dropped frame counting as infinitely late (nearest
        rank): inf when more than 100 - `percentile` % of the frames were dropped."""
        rank = math.ceil(percentile / 100 * self.offered)
        if rank == 0:
            return 0.0
        import numpy as np
        return float(np.sort(self.latencies_ms)[rank - 1]) if rank <= self.completed else math.inf

    def late(self, budget_ms: float) -> int:
        """Frames that completed later than `budget_ms` after they arrived."""
        return int((self.latencies_ms > budget_ms).sum())

    def serves(self, target: CameraTarget) -> bool:
        """Whether every camera got what it needs (see PASS_RATIO)."""
        return (self.completed >= PASS_RATIO * self.offered
                and self.percentile_ms(target.percentile) <= target.max_latency_ms)


# The share of a load harness's own ceiling (or, for an LLM, of a budget's limit the harness alone takes) from which a
# figure is said to be set by ov-tuner's harness, not by the device.
HARNESS_LIMIT = 0.8


@dataclass(frozen=True)
class HarnessCarried:
    """What ov-tuner's load harness carried with the device's work made trivial (ov_tuner.measure.ceiling): frames a
    second, and whether that is its ceiling (False: every rate tried was carried, so it is at least that)."""

    frames_per_s: float
    reached: bool


@dataclass(frozen=True)
class Capacity:
    """Open-loop trials of one configuration against a camera target: a search for the most cameras it serves
    (`searched`), or one given camera count; `harness`, the open loop's own ceiling at the cameras served, measured
    after the trials (None before, or where none was served)."""

    config: PointConfig
    target: CameraTarget
    searched: bool
    trials: tuple[LoadTrial, ...]
    harness: HarnessCarried | None = None


@dataclass(frozen=True)
class SoakWindow:
    """One window of a soak: when it started (seconds from the soak's start), the window, and its latencies."""

    start_s: float
    window: Window
    latencies_ms: np.ndarray

    def percentile_ms(self, percentile: float) -> float:
        import numpy as np
        return float(np.percentile(self.latencies_ms, percentile))


@dataclass(frozen=True)
class Soak:
    """One configuration run for a long time in windows; `planned_s` is what was asked for (a Ctrl-C ends it
    sooner, and the windows measured are kept)."""

    config: PointConfig
    planned_s: float
    window_s: float
    windows: tuple[SoakWindow, ...]


@dataclass(frozen=True)
class NeighbourPhase:
    """One window of a pass of `ov-tuner neighbours` (`pass_number`, from 0): one copy alone, or every copy together
    (FPS and p90 latency per copy)."""

    pass_number: int
    together: bool
    fps: tuple[float, ...]
    p90_ms: tuple[float, ...]
