"""What was measured: windows with what the host did meanwhile, latencies, and why a run ended.

Numbers stay numbers (milliseconds, seconds, frames per second) until the CLI or a plot displays them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy loads where a method computes: the command line imports schema for --help
    import numpy as np


@dataclass(frozen=True)
class LatencyStats:
    """Per-request latency in milliseconds, from the requests' own C++-side timers."""

    median: float
    p90: float
    p99: float
    min: float
    max: float
    count: int

    @classmethod
    def of(cls, latencies_ms: np.ndarray) -> LatencyStats:
        if latencies_ms.size == 0:
            raise ValueError("no latencies to summarise")
        import numpy as np
        p50, p90, p99 = np.percentile(latencies_ms, [50, 90, 99])
        return cls(
            float(p50), float(p90), float(p99),
            float(latencies_ms.min()), float(latencies_ms.max()), int(latencies_ms.size),
        )


# A window measured while other processes used more than this share of all CPUs, or while the hypervisor
# stole more than STEAL_LIMIT of them, measured the host's load as much as the configuration: stopping rules
# and a point's FPS set it aside (when the point has undisturbed windows too), and `show` says so.
FOREIGN_CPU_LIMIT = 0.20
STEAL_LIMIT = 0.10


@dataclass(frozen=True)
class Window:
    """One stretch of a measurement: its throughput, median latency, completions and length (s), and what the
    host did meanwhile: other processes' and the hypervisor's share of all CPUs, this process's CPU seconds
    (every thread) and the CPU clock. The host figures are None where the OS does not expose them."""

    fps: float
    median_ms: float
    requests: int
    seconds: float
    foreign_cpu: float | None = None
    steal: float | None = None
    own_cpu_s: float | None = None
    cpu_mhz: float | None = None

    @property
    def disturbed(self) -> bool:
        return (self.foreign_cpu or 0.0) > FOREIGN_CPU_LIMIT or (self.steal or 0.0) > STEAL_LIMIT


def counted(windows: tuple[Window, ...] | list[Window]) -> tuple[Window, ...]:
    """The windows figures stand on: the undisturbed ones, or every window when all were disturbed."""
    clean = tuple(w for w in windows if not w.disturbed)
    return clean or tuple(windows)


class Ending(str, Enum):
    """Why a measurement ended."""

    SETTLED = "settled"  # the last windows agreed within the tolerance
    UNSETTLED = "unsettled"  # the time cap came first: the last windows never agreed ('capped' before v16)
    FIXED = "fixed"  # it ran for a fixed time, with no stability rule
    OUTPACED = "outpaced"  # smart search stopped it early: it could not beat the best point so far
    DECIDED = "decided"  # smart search had its answer: a contender, measured again in the confirmation round


# Told the windows so far, ends a run early (e.g. OUTPACED), or says None to let it go on.
Verdict = Callable[[list[Window]], Ending | None]


@dataclass(frozen=True)
class Measurement:
    """One measured run: every request it started had completed when the clock stopped.

    `windows` are consecutive stretches of the run; `ended` says why it stopped; `client_cpu_share` is
    the CPU time of the Python thread driving the loop over the wall time: near 1, Python rather than
    the device limits throughput. `process_cpu_s` is the whole process's CPU time over the run (every
    thread: OpenVINO's and a GPU driver's too).
    """

    requests: int
    frames: int
    wall_s: float
    latencies_ms: np.ndarray
    windows: tuple[Window, ...]
    ended: Ending = Ending.FIXED
    client_cpu_share: float = 0.0
    process_cpu_s: float | None = None
    fps_ci95: tuple[float, float] | None = None  # stats.interval.fps_interval of the counted windows

    @property
    def counted_windows(self) -> tuple[Window, ...]:
        return counted(self.windows)

    @property
    def disturbed_windows(self) -> int:
        return sum(w.disturbed for w in self.windows)

    @property
    def fps(self) -> float:
        """Frames over wall time; over the undisturbed windows alone when some were measured on a busy host."""
        windows = self.counted_windows
        if len(windows) == len(self.windows):
            return self.frames / self.wall_s
        return sum(w.fps * w.seconds for w in windows) / sum(w.seconds for w in windows)

    @property
    def latency(self) -> LatencyStats:
        return LatencyStats.of(self.latencies_ms)

    @property
    def cpu_ms_per_request(self) -> float | None:
        """Milliseconds of this process's CPU time (every thread) per inference request."""
        if self.process_cpu_s is None or self.requests == 0:
            return None
        return 1000 * self.process_cpu_s / self.requests

    @property
    def fps_cv(self) -> float | None:
        """Coefficient of variation of the counted windows' FPS, or None with fewer than 3 windows."""
        import numpy as np
        values = np.asarray([w.fps for w in self.counted_windows])
        if values.size < 3:
            return None
        return float(values.std(ddof=1) / values.mean())
