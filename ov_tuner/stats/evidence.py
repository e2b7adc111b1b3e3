"""How sure a point's FPS is, and when one point is clearly worse than another.

A point's windows give its mean FPS and a per-window noise figure. Two or three windows say little about
noise, so the figure leans on a prior (PRIOR_WINDOW_CV) that the point's own windows outweigh as they
accumulate: a pooled variance, as in the conjugate normal model with PRIOR_WEIGHT prior degrees of
freedom (Gelman et al., Bayesian Data Analysis, 3rd ed., section 3.3). Points measured minutes apart
also differ by the host's drift, which no point's own windows show, so DRIFT widens every comparison
between two points. Comparisons are on the log scale, so "5% worse" means the same at any FPS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ov_tuner.schema import Window, counted
from ov_tuner.stats.interval import Z_QUANTILES

# Per-window FPS noise (coefficient of variation) assumed before a point's own windows say otherwise.
PRIOR_WINDOW_CV = 0.04
# How many windows' worth of evidence the prior counts for.
PRIOR_WEIGHT = 2
# Two points measured at different times can differ by this much (95%) through the host alone.
DRIFT = 0.03
# Two-sided 95% quantile of the normal distribution.
Z95 = Z_QUANTILES[0.95]


@dataclass(frozen=True)
class Estimate:
    """A point's FPS from its undisturbed windows (time-weighted), with its pooled per-window noise."""

    fps: float
    windows: int
    window_cv: float

    @classmethod
    def of(cls, windows: tuple[Window, ...] | list[Window]) -> Estimate:
        used = counted(windows)
        if not used:
            raise ValueError("an estimate needs at least one window")
        seconds = sum(w.seconds for w in used)
        fps = sum(w.fps * w.seconds for w in used) / seconds
        n = len(used)
        own = 0.0
        if n > 1:
            values = [w.fps for w in used]
            mean = sum(values) / n
            own = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) / mean
        pooled = math.sqrt((PRIOR_WEIGHT * PRIOR_WINDOW_CV**2 + (n - 1) * own**2) / (PRIOR_WEIGHT + n - 1))
        return cls(fps, n, pooled)

    @property
    def relative_se(self) -> float:
        """Standard error of the mean FPS, relative to it."""
        return self.window_cv / math.sqrt(self.windows)

    @property
    def half_width(self) -> float:
        """Relative half-width of the 95% interval of the mean FPS."""
        return Z95 * self.relative_se


def log_ratio_se(a: Estimate, b: Estimate) -> float:
    """Standard error of log(a / b) for two points measured at different times: their own noise and drift."""
    return math.sqrt(a.relative_se**2 + b.relative_se**2 + (DRIFT / Z95) ** 2)


def clearly_worse(a: Estimate, b: Estimate) -> bool:
    """Whether `a`'s FPS is below `b`'s beyond noise: the 95% interval of log(a / b) lies below zero."""
    return math.log(a.fps / b.fps) + Z95 * log_ratio_se(a, b) < 0
