"""The one capacity walk: the most load a setting serves within its target (cameras at a frame rate within a latency
percentile, users or requests a second within an LLM's budget), stated with an interval. Pure: it reads the windows
measured so far, each a load and whether it met the target, and names the next load, so a test drives it on
constructed windows and a resumed job goes on from what it stored.

How it walks. From the load given it grows while loads are met (Growth: doubling; by one step, for a walk that
starts where the answer is expected; or by steps that double from the load given, 1, 2, 4, ... past it, for a walk
that starts near a figure found before and should end in a few windows however far from it the answer lies), then
bisects between the highest load met and the lowest not met until they lie within `precision` of each other (one
unit apart for whole loads), halving where even the first load fails. Near the boundary no single window decides:
each of the two loads at the edge is measured `repeats` times, and again (up to `most_repeats`) while the interval
is wider than `width` of the figure, the less settled edge first, then the load below the served edge. Loads far
from the edge are measured once: repeats go where the boundary is. A walk repeats `most_repeated` windows at most:
where the boundary is a wide band that windows land either side of at random, it would wander along it, so it stops
there and its interval says how wide the band is.

What the windows say. Per load, the share of its windows that met the target, made non-increasing in the load
(isotonic regression by pooling adjacent violators, Barlow, Bartholomew, Bremner and Brunk, Statistical Inference
under Order Restrictions, 1972): more load never serves better, so a met window above a missed one pools with it. The
figure is the highest load whose share is more than one half (a tie is not served).

The interval. Each window says where the boundary lay while it ran: a window that met the target at a load would
have met it at any load below, and one that missed would have missed at any load above. So each load's chance to
meet the target has a Jeffreys posterior (Brown, Cai and DasGupta, Statistical Science 16(2), 2001) on the windows
that speak for it: Beta(windows met at it or above + 1/2, windows missed at it or below + 1/2). Counting only the
load's own windows, a load far below the edge walked past once kept a one-in-six chance of failing in a draw, and
the demo's LLM walk read "40 users (95%: 0..48)" from five-window edges that a single window at 16 and at 32 let
fall to nothing. DRAWS draws of every load's chance are each made non-increasing and read as above. The low end is
the 2.5th percentile of the figures drawn; the high end the 97.5th percentile of the most each draw leaves possible
(one unit below the next load tried above its figure, or the figure itself where nothing above it was tried: a walk
stopped at its ceiling says "at least"). Both ends then move out by the spread a rerun shows that no single walk can
(RERUN_SD, the same term a gain's interval carries: the demo's LLM walks gave 38 (36..39) and 42 (42..43) users in
two runs without it). Seeded: the same windows give the same interval. A second walk compared with it (walked
alternately, at the same time) draws the same way; the difference's interval comes from the draws' differences,
moved out by the rerun spread of the larger figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

import numpy as np

from ov_tuner.stats.headtohead import RERUN_SD
from ov_tuner.stats.interval import Z_QUANTILES

# How close the highest load met and the lowest not met must lie before the walk stops bisecting, as a share of the
# first (GuideLLM's goodput profile bisects to 10%; a finer step costs a window a halving).
PRECISION = 0.05
# Windows at each of the two edge loads before the walk may end: no single window sets the figure.
REPEATS = 3
# The most windows at an edge load, repeated while the interval is wider than WIDTH.
MOST_REPEATS = 5
# The interval's width the walk repeats for, as a share of the figure (one unit where the figure is smaller).
WIDTH = 0.10
# The most windows a walk repeats (beyond the first at each load it tried): where the boundary is a wide band that any
# window may land either side of, the walk would wander along it; it stops here and its interval says how wide the band
# is. Counting repeats only, a walk over a wide range (1 to 4096 cameras) still brackets and bisects in full.
MOST_REPEATED = 8
# Draws of the loads' chances for the interval.
DRAWS = 2000
CONFIDENCE = 0.95
# The normal quantile of CONFIDENCE, for the rerun term.
RERUN_Z = Z_QUANTILES[CONFIDENCE]
# A load is served where its (non-increasing) share of met windows is more than this: a tie is not served.
MAJORITY = 0.5

# One measured window: the load it ran and whether it met the target.
Window = tuple[float, bool]


class Growth(Enum):
    """How a walk grows the load while loads are met."""

    DOUBLING = "doubling"
    ONE_STEP = "one step"  # the highest load met, plus `step`
    WIDENING = "widening"  # the distance past the start doubles, plus `step`: start + step, + 3 steps, + 7 steps ...


@dataclass(frozen=True)
class WalkRule:
    """Where a walk starts and how far it goes: from `start`, growing by `growth` (its `step`) up to `most`;
    halving from `start` down to `least`; `whole` loads (users, cameras) are tried as whole numbers. The repeats and
    the width are the module's unless given."""

    start: float
    most: float
    whole: bool = True
    least: float = 1.0
    growth: Growth = Growth.DOUBLING
    step: float = 1.0
    precision: float = PRECISION
    repeats: int = REPEATS
    most_repeats: int = MOST_REPEATS
    width: float = WIDTH
    most_repeated: int = MOST_REPEATED

    @property
    def unit(self) -> float:
        return 1.0 if self.whole else 0.0


@dataclass(frozen=True)
class Boundary:
    """What a walk's windows say: `served`, the highest load whose windows mostly met the target (0: none did), with
    its CONFIDENCE interval `low`..`high`; `at_ceiling` where nothing above `served` was tried (it may serve more);
    `loads`, each load tried with its windows and how many met."""

    served: float
    low: float
    high: float
    at_ceiling: bool
    loads: tuple[tuple[float, int, int], ...]

    def holds(self, load: float) -> bool:
        """Whether the walk's rule counts `load` served: the loads up to the figure, whose shares of met windows,
        made non-increasing, are more than MAJORITY (a load below it with a missed window among more met ones is
        served; one above it with a met window is not)."""
        return 0 < load <= self.served


@dataclass(frozen=True)
class BoundaryDifference:
    """One walk's figure less another's, walked alternately, with the CONFIDENCE interval of the difference drawn as
    each boundary's is; `differs` where the interval excludes 0."""

    value: float
    low: float
    high: float

    @property
    def differs(self) -> bool:
        return self.low > 0 or self.high < 0


def next_load(windows: Sequence[Window], rule: WalkRule) -> float | None:
    """The load to measure next, or None when the walk is done (see the module's docstring)."""
    if not windows:
        return _load(min(rule.start, rule.most), rule)
    loads, n, met = _tally(windows)
    # the repeats are spent: only a load not tried yet may follow (a repeat that turned the highest load served leaves
    # the walk unbracketed above it: it grows, then bisects, as the cap counts repeats only)
    spent = len(windows) - len(loads) >= rule.most_repeated
    served_at = _served_index(n, met)
    served = float(loads[served_at]) if served_at >= 0 else 0.0
    failed_at = served_at + 1 if served_at + 1 < len(loads) else None
    if failed_at is None:  # every load tried up to the highest was served
        if served < rule.most:
            return _load(min(_grown(served, rule), rule.most), rule)
        return served if n[served_at] < rule.repeats and not spent else None
    failed = float(loads[failed_at])
    if served_at < 0:  # not even the lowest tried met it: halve, down to the least
        lower = _load(failed / 2, rule)
        if lower >= rule.least and lower < failed:
            return lower
        return failed if n[failed_at] < rule.repeats and not spent else None
    if failed - served > max(rule.unit, rule.precision * served):
        middle = _load((served + failed) / 2, rule)
        if served < middle < failed:
            return middle
    if spent:
        return None
    short = [i for i in (served_at, failed_at) if n[i] < rule.repeats]
    if short:
        return float(loads[short[0]])
    if rule.most_repeats <= rule.repeats:
        return None  # a walk that repeats no more than its edges' windows (the pipeline search's)
    rates = met / n
    spare = [i for i in (served_at, failed_at) if n[i] < rule.most_repeats]
    below = served_at - 1 if served_at >= 1 and n[served_at - 1] < rule.repeats else None
    if not spare and below is None:
        return None
    found = boundary(windows, rule.whole, rerun=False)  # what more windows can narrow
    if found.high - found.low <= rule.width * max(found.served, 1.0):
        return None
    # the interval is too wide: measure again the less settled edge that has windows to spare, then the load below
    # the served edge (a single window there lets the figure fall through it)
    if spare:
        return float(loads[min(spare, key=lambda i: (abs(rates[i] - MAJORITY), n[i]))])
    return float(loads[below]) if below is not None else None


def figure(windows: Sequence[Window]) -> float:
    """The figure alone, without its interval's draws: what a search reads at every step of its walks."""
    if not windows:
        return 0.0
    loads, n, met = _tally(windows)
    served_at = _served_index(n, met)
    return float(loads[served_at]) if served_at >= 0 else 0.0


def boundary(windows: Sequence[Window], whole: bool = True, rerun: bool = True) -> Boundary:
    """The figure and its interval from the windows so far (see the module's docstring), widened by the spread a
    rerun shows that no single walk can (`rerun`)."""
    if not windows:
        return Boundary(0.0, 0.0, 0.0, False, ())
    loads, n, met = _tally(windows)
    served_at = _served_index(n, met)
    served = float(loads[served_at]) if served_at >= 0 else 0.0
    figures, most = _drawn(tuple(loads), tuple(n), tuple(met), whole)
    tail = (1 - CONFIDENCE) / 2
    at_ceiling = served_at == len(loads) - 1
    low = min(float(np.quantile(figures, tail, method="lower")), served)
    high = max(float(np.quantile(most, 1 - tail, method="higher")), served)
    if rerun:
        low, high = _rerun(low, whole, -1), high if at_ceiling else _rerun(high, whole, 1)
    return Boundary(served=served, low=low, high=high, at_ceiling=at_ceiling,
                    loads=tuple((float(x), int(k), int(m)) for x, k, m in zip(loads, n, met, strict=True)))


def difference(mine: Sequence[Window], theirs: Sequence[Window], whole: bool = True) -> BoundaryDifference:
    """`mine`'s figure less `theirs`, with the interval of the difference of their draws."""
    a, b = boundary(mine, whole), boundary(theirs, whole)
    drawn_a = _drawn(*map(tuple, _tally(mine)), whole)[0] if mine else np.zeros(DRAWS)
    drawn_b = _drawn(*map(tuple, _tally(theirs)), whole, seed=1)[0] if theirs else np.zeros(DRAWS)
    tail = (1 - CONFIDENCE) / 2
    value = a.served - b.served
    spread = drawn_a - drawn_b
    reach = rerun_reach(a.served, b.served)
    low_end = float(np.quantile(spread, tail, method="lower")) - reach
    high_end = float(np.quantile(spread, 1 - tail, method="higher")) + reach
    if whole:
        low_end, high_end = float(np.floor(low_end)), float(np.ceil(high_end))
    return BoundaryDifference(value, min(low_end, value), max(high_end, value))


def rerun_reach(served: float, other: float) -> float:
    """What a rerun may move the difference of two walks by, either way: walked alternately, the two share the host's
    drift, and what a rerun moves is their gap, in proportion to the loads (no window of this run narrows it)."""
    return RERUN_Z * RERUN_SD * max(served, other)


def _rerun(bound: float, whole: bool, side: int) -> float:
    """An end of the interval moved out by the rerun spread (RERUN_SD, as a gain's is), whole loads rounded out."""
    moved = bound * float(np.exp(side * RERUN_Z * RERUN_SD))
    return float(np.floor(moved) if side < 0 else np.ceil(moved)) if whole else moved


def _grown(served: float, rule: WalkRule) -> float:
    """The load past `served`, the highest met with nothing above it failed, by the rule's growth."""
    if rule.growth is Growth.DOUBLING:
        return 2 * served
    past = max(served - rule.start, 0.0) if rule.growth is Growth.WIDENING else 0.0
    return served + past + rule.step


def _load(x: float, rule: WalkRule) -> float:
    return float(int(x)) if rule.whole else float(x)


def _tally(windows: Sequence[Window]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The loads tried, ascending, with their windows and how many met."""
    loads = np.array(sorted({float(x) for x, _ in windows}))
    n = np.zeros(loads.size)
    met = np.zeros(loads.size)
    for x, ok in windows:
        i = int(np.searchsorted(loads, float(x)))
        n[i] += 1
        met[i] += ok
    return loads, n, met


def _non_increasing(shares: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The weighted least-squares non-increasing fit of each row of `shares` (one row, or one per draw), by the
    min-max formula f_j = min over a <= j of max over b >= j of the weighted mean over a..b (Barlow et al., theorem
    1.4, turned over): vectorised over rows for the few loads a walk tries."""
    rows = np.atleast_2d(shares)
    weighted = np.concatenate([np.zeros((rows.shape[0], 1)), np.cumsum(rows * weights, axis=1)], axis=1)
    total = np.concatenate([[0.0], np.cumsum(weights)])
    size = rows.shape[1]
    a, b = np.triu_indices(size)
    means = np.full((rows.shape[0], size, size), np.nan)
    means[:, a, b] = (weighted[:, b + 1] - weighted[:, a]) / (total[b + 1] - total[a])
    fit = np.empty_like(rows, dtype=float)
    for j in range(size):
        fit[:, j] = np.nanmin(np.nanmax(means[:, :j + 1, j:], axis=2), axis=1)
    return fit


def _served_index(n: np.ndarray, met: np.ndarray) -> int:
    """The index of the highest load whose share of met windows, made non-increasing, is more than MAJORITY (-1:
    none)."""
    at = np.flatnonzero(_non_increasing(met / n, n)[0] > MAJORITY)
    return int(at[-1]) if at.size else -1


@lru_cache(maxsize=256)
def _drawn(load_list: tuple[float, ...], n_list: tuple[float, ...], met_list: tuple[float, ...], whole: bool,
           seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Per draw: the figure, and the most it leaves possible (one unit below the next load tried above it). Cached:
    a search asks again of the same windows at every step."""
    loads, n, met = np.array(load_list), np.array(n_list), np.array(met_list)
    met_above = np.cumsum(met[::-1])[::-1]  # windows met at each load or above
    missed_below = np.cumsum(n - met)  # windows missed at each load or below
    rng = np.random.default_rng(seed)
    chances = rng.beta(met_above + 0.5, missed_below + 0.5, size=(DRAWS, loads.size))
    fit = _non_increasing(chances, met_above + missed_below)
    ok = fit > MAJORITY
    # the highest index that holds (non-increasing, so the count of True is the first that fails)
    count = ok.sum(axis=1)
    figures = np.where(count > 0, loads[np.maximum(count - 1, 0)], 0.0)
    above = np.append(loads, np.inf)[count]
    unit = 1.0 if whole else 0.0
    most = np.where(np.isfinite(above), above - unit, figures)
    return figures, np.maximum(most, figures)
