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


# Upper quantiles of Student's t for 1..30 degrees of freedom (the normal's beyond): 97.5% for two-sided 95%
# intervals, 99.95% for two-sided 99.9% ones.
_T_QUANTILES = {
    0.95: (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
           2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
           1.960),
    0.999: (636.62, 31.599, 12.924, 8.610, 6.869, 5.959, 5.408, 5.041, 4.781, 4.587, 4.437, 4.318, 4.221, 4.140,
            4.073, 4.015, 3.965, 3.922, 3.883, 3.850, 3.819, 3.792, 3.768, 3.745, 3.725, 3.707, 3.690, 3.674, 3.659,
            3.646, 3.291),
}


def t975(dof: int) -> float:
    """The 97.5% quantile of Student's t: a 95% two-sided interval is mean +- t975(n - 1) * sd / sqrt(n)."""
    return t_quantile(dof, 0.95)


def t_quantile(dof: int, confidence: float) -> float:
    """The quantile of Student's t for a two-sided interval of `confidence` (0.95 or 0.999)."""
    if dof < 1:
        raise ValueError("a t interval needs at least 2 samples")
    table = _T_QUANTILES[confidence]
    return table[min(dof, len(table)) - 1]


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

    @property
    def fps_ci95(self) -> tuple[float, float] | None:
        """95% confidence interval of the mean counted window FPS (Student's t; windows treated as independent,
        which consecutive windows only approximately are), its low end held at 0 (a few scattered windows can put it
        below, and no configuration runs fewer than no frames). None with fewer than 2 windows."""
        import numpy as np
        values = np.asarray([w.fps for w in self.counted_windows])
        if values.size < 2:
            return None
        half = t975(values.size - 1) * values.std(ddof=1) / np.sqrt(values.size)
        return (max(float(values.mean() - half), 0.0), float(values.mean() + half))
