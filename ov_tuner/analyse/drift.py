"""Drift along a soak: did FPS (and p99) change over time, when, by how much, and what changed with it (the CPU
clock, other processes' load). Pure.

How: of every split of the windows into a before and an after (each at least MIN_SIDE windows), the one that
explains most of the windows' spread (least squares, the first step of binary segmentation; Killick & Eckley,
changepoint, 2014) is the candidate step, kept to one step, which is what throttling and a neighbour starting look
like. Its size is the after's median FPS against the before's. It counts as drift when it is at least DRIFT_MIN and
more than NOISE_FACTOR times the windows' own scatter around their side's median (robust, from the median
absolute deviation): a step that noise alone would make is not reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ov_tuner.schema import Soak, SoakWindow

# A change of FPS smaller than this share is not called drift, however quiet the windows.
DRIFT_MIN = 0.05
# ... and it must be this many times the windows' scatter (robust standard deviation) around their side's median.
NOISE_FACTOR = 3.0
# The fewest windows on each side of a step.
MIN_SIDE = 3
# A CPU clock that moved by less than this share held.
CLOCK_MIN = 0.03
# Other processes' share of all CPUs that moved by more than this counts as a change of the host's load.
LOAD_MIN = 0.10


@dataclass(frozen=True)
class Side:
    """The windows on one side of the step: their median FPS and p99 latency, CPU clock and foreign load."""

    fps: float
    p99_ms: float
    cpu_mhz: float | None
    foreign_cpu: float | None


@dataclass(frozen=True)
class Drift:
    """The largest step along a soak and whether it is real (`drifted`); `at_s` is when the after side began."""

    before: Side
    after: Side
    at_s: float
    noise: float  # the windows' robust relative scatter around their side's median
    drifted: bool
    minutes: float  # how long the soak's stored windows cover

    @property
    def change(self) -> float:
        return self.after.fps / self.before.fps - 1

    @property
    def clock_changed(self) -> bool:
        b, a = self.before.cpu_mhz, self.after.cpu_mhz
        return b is not None and a is not None and abs(a / b - 1) >= CLOCK_MIN

    @property
    def load_changed(self) -> bool:
        b, a = self.before.foreign_cpu, self.after.foreign_cpu
        return b is not None and a is not None and abs(a - b) >= LOAD_MIN


@dataclass(frozen=True)
class SoakDrift:
    """A soak and what the drift analysis found along it (None: too few windows to tell), so that its sentence and
    its figure say the same step."""

    soak: Soak
    drift: Drift | None


def soak_drift(soak: Soak) -> SoakDrift:
    return SoakDrift(soak, drift(soak.windows))


def drift(windows: Sequence[SoakWindow]) -> Drift | None:
    """The largest step of FPS along the windows and whether it is drift; None with too few windows to tell."""
    if len(windows) < 2 * MIN_SIDE:
        return None
    fps = np.array([w.window.fps for w in windows])
    n = len(fps)
    # The split that explains most of the windows' spread: the largest n1 n2 / n (mean1 - mean2)^2.
    split = max(range(MIN_SIDE, n - MIN_SIDE + 1),
                key=lambda i: i * (n - i) / n * (fps[:i].mean() - fps[i:].mean()) ** 2)
    before, after = _side(windows[:split]), _side(windows[split:])
    step = abs(after.fps / before.fps - 1)
    noise = _noise(fps[:split], fps[split:])
    end = windows[-1].start_s + windows[-1].window.seconds
    return Drift(before, after, windows[split].start_s, noise, step >= DRIFT_MIN and step > NOISE_FACTOR * noise,
                 end / 60)


def _side(windows: Sequence[SoakWindow]) -> Side:
    mhz = [w.window.cpu_mhz for w in windows if w.window.cpu_mhz is not None]
    load = [w.window.foreign_cpu for w in windows if w.window.foreign_cpu is not None]
    return Side(float(np.median([w.window.fps for w in windows])),
                float(np.median([w.percentile_ms(99) for w in windows])),
                float(np.median(mhz)) if mhz else None, float(np.median(load)) if load else None)


def _noise(*sides: np.ndarray) -> float:
    """The windows' robust relative scatter around their own side's median: 1.4826 x the median absolute
    deviation, which estimates a standard deviation for normal data and ignores a few outlying windows."""
    deviations = np.concatenate([np.abs(s / np.median(s) - 1) for s in sides])
    return float(1.4826 * np.median(deviations))
