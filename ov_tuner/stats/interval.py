"""One interval for figures measured side by side in passes: the confirmation round's FPS ratios, the
pipeline's cameras, and the sequential rule that decides which contenders still take passes.

Within one pass every contender met the same host, so a pass pairs them: the interval is Student's t over the
per-pass differences with passes - 1 degrees of freedom (the paired t interval, Montgomery, Design and Analysis
of Experiments, 9th ed., section 2.5.1), on the log scale where a ratio is wanted. A rerun term (a spread that
no single round can show) adds in quadrature, as a random effect of the run (section 13.1).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ov_tuner.schema import Window

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


# Two-sided normal quantiles: the rerun part of an interval, and where a standard error is known.
Z_QUANTILES = {0.95: 1.960, 0.999: 3.291}


@dataclass(frozen=True)
class Interval:
    """A mean with its two-sided interval of `confidence` over `n` passes: a difference (or a figure, unpaired),
    or, on the log scale, a ratio (the geometric mean). NaN bounds with fewer than two passes."""

    value: float
    low: float
    high: float
    n: int
    confidence: float


def t_quantile(dof: int, confidence: float) -> float:
    """The quantile of Student's t for a two-sided interval of `confidence`: the tables' for 95% and 99.9%, else
    found from the distribution's exact form (a sequential rule's per-look confidences, 1 - 0.05 / looks)."""
    if dof < 1:
        raise ValueError("a t interval needs at least 2 samples")
    if confidence in _T_QUANTILES:
        table = _T_QUANTILES[confidence]
        return table[min(dof, len(table)) - 1]
    return _t_quantile(dof, confidence)


@functools.lru_cache(maxsize=256)
def _t_quantile(dof: int, confidence: float) -> float:
    """The t with P(|T| < t) = `confidence` for `dof` degrees of freedom, by bisection on the exact distribution."""
    if not 0 < confidence < 1:
        raise ValueError("a confidence lies between 0 and 1")
    low, high = 0.0, 1.0
    while _t_within(high, dof) < confidence:
        high *= 2
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if _t_within(middle, dof) < confidence else (low, middle)
    return (low + high) / 2


def _t_within(t: float, dof: int) -> float:
    """P(|T| < t) for Student's t with `dof` degrees of freedom, in closed form (Abramowitz and Stegun, Handbook of
    Mathematical Functions, 26.7.3 and 26.7.4): a finite series in cos(theta), theta = atan(t / sqrt(dof))."""
    theta = math.atan(t / math.sqrt(dof))
    cos2 = math.cos(theta) ** 2
    term, total = 1.0, 1.0
    if dof % 2 == 0:
        for k in range(1, dof // 2):
            term *= cos2 * (2 * k - 1) / (2 * k)
            total += term
        return math.sin(theta) * total
    if dof == 1:
        return 2 * theta / math.pi
    for k in range(1, (dof - 1) // 2):
        term *= cos2 * (2 * k) / (2 * k + 1)
        total += term
    return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)


def fps_interval(windows: tuple[Window, ...]) -> tuple[float, float] | None:
    """95% interval of the mean window FPS (Student's t; windows treated as independent, which consecutive windows
    only approximately are), its low end held at 0 (a few scattered windows can put it below, and no configuration
    runs fewer than no frames). None with fewer than 2 windows."""
    found = paired_interval(np.asarray([w.fps for w in windows], dtype=float))
    return None if found.n < 2 else (max(found.low, 0.0), found.high)


def paired_interval(a: np.ndarray, b: np.ndarray | None = None, confidence: float = 0.95, log: bool = False,
                    rerun_sd: float = 0.0) -> Interval:
    """The mean of `a` - `b` per pass (of `a` itself when `b` is None), or of log(`a` / `b`) when `log`, over the
    passes that hold both (NaN where a pass missed one), with a t interval of `confidence` widened by `rerun_sd`
    (on the scale of the differences) in quadrature. With `log`, value and bounds come back as ratios."""
    if b is None:
        values = a[np.isfinite(a)]
        differences = np.log(values) if log else values
    else:
        both = np.isfinite(a) & np.isfinite(b)
        differences = np.log(a[both] / b[both]) if log else a[both] - b[both]
    n = differences.size
    mean = float(differences.mean()) if n else math.nan
    if n < 2:
        low = high = math.nan
    else:
        passes = t_quantile(n - 1, confidence) * float(differences.std(ddof=1)) / math.sqrt(n)
        half = math.hypot(passes, Z_QUANTILES[confidence] * rerun_sd) if rerun_sd else passes
        low, high = mean - half, mean + half
    if log:
        return Interval(math.exp(mean), math.exp(low), math.exp(high), n, confidence)
    return Interval(mean, low, high, n, confidence)


def pass_adjusted_means(figures: np.ndarray, log: bool = True) -> np.ndarray:
    """Each contender's mean figure (columns of passes x contenders, NaN where a pass did not measure it), as if
    it had been measured in every pass. A contender that stopped taking passes early did not meet the later
    passes' drift, so its plain mean is no fair match for the leader's: it is the reference's mean (the
    contender that took the most passes, the leader as a rule) times their ratio over the passes both took (plus
    their difference, unless `log`). So it ranks against the reference as the paired comparison does, and
    where a contender took the reference's passes its plain mean comes back."""
    seen = np.isfinite(figures)
    plain = _column_means(figures, seen)
    reference = max(range(figures.shape[1]), key=lambda i: (int(seen[:, i].sum()), np.nan_to_num(plain[i])))
    adjusted = plain.copy()
    for i in range(figures.shape[1]):
        shared = seen[:, i] & seen[:, reference]
        if shared.any() and not np.array_equal(seen[:, i], seen[:, reference]):
            mine, theirs = figures[shared, i].mean(), figures[shared, reference].mean()
            adjusted[i] = plain[reference] * mine / theirs if log else plain[reference] + mine - theirs
    return adjusted


def _column_means(values: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """Means of each column over its seen entries (NaN for a column with none), without nanmean's warnings."""
    counts = seen.sum(axis=0)
    sums = np.where(seen, values, 0.0).sum(axis=0)
    return np.divide(sums, counts, out=np.full(counts.shape, math.nan), where=counts > 0)
