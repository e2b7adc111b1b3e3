"""Rounds: contenders measured side by side, pass after pass, each pass pairing them; and the sequential rule that
decides after each pass which of them still take passes. Pure: the driver measures through a callback.

The confirmation round (ov_tuner.workloads.sweep.confirm: one window's FPS per visit) and the pipeline's
head-to-head rounds (the cameras a split serves in a pass) both run here. A pass visits its contenders forward in
even passes and backward in odd ones (A B C, then C B A), so that a drift of the host hits every contender alike.

The sequential rule: every contender takes the first `min_passes` passes. After each later pass, the leader (the
candidate with the highest pass-adjusted mean) goes on, and so does every other contender whose interval against
it (this round's passes only, no rerun term) neither excludes it nor lies within TIE_MARGIN of it: more passes can
still tell those apart; the rest are decided and stop. Passes end at `max_passes`, when nothing but the leader is
open, or when the next pass would overrun the budget.

Why the interval is wider than 95%: the rule looks after every pass, and a 95% interval looked at after each of
five passes calls a difference between two identical contenders about 14% of the time, not 5% (peeking). So the
rule spends the 5% over the looks it may take (a group-sequential boundary with alpha spent evenly, Bonferroni's
bound: each look at 1 - 0.05 / looks, looks being every pass from `min_passes` to `max_passes`), which holds the
chance of calling any difference that is not there within 5% however many looks are taken (Jennison and Turnbull,
Group Sequential Methods with Applications to Clinical Trials, 2000, section 2.3). scripts/bench_sequential.py
shows it on A/A comparisons drawn from recorded windows.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ov_tuner.stats.headtohead import TIE_MARGIN
from ov_tuner.stats.interval import paired_interval, pass_adjusted_means

# The confidence the sequential rule holds over all its looks together: 95%, as the stated intervals. Each look
# takes its share (RoundLimits.look_confidence). The decision only ends a contender's passes; what is stated about
# it afterwards is its own interval over the passes it had (with the rerun term), so a contender stopped a little
# early is stated with a wider interval, never a narrower one.
STOP_CONFIDENCE = 0.95

# Measures one contender (its position) once in the pass numbered (from 0); its figure, or None when it has none
# (stopped, or failed).
Measure = Callable[[int, int], float | None]


@dataclass(frozen=True)
class RoundLimits:
    """How many passes a round takes: `min_passes` over every contender, then passes over the open ones up to
    `max_passes` in all while the seconds spent stay within `budget_s`."""

    min_passes: int
    max_passes: int
    budget_s: float = math.inf

    def __post_init__(self) -> None:
        if not 2 <= self.min_passes <= self.max_passes or self.budget_s < 0:
            raise ValueError("a round needs at least 2 passes over every contender, no more than the most passes, and "
                             "a budget of at least 0 s")

    @property
    def looks(self) -> int:
        """The looks the sequential rule may take: after each pass from `min_passes` to `max_passes`."""
        return self.max_passes - self.min_passes + 1

    @property
    def look_confidence(self) -> float:
        """The confidence of one look's interval: STOP_CONFIDENCE's 5% spent evenly over the looks."""
        return 1 - (1 - STOP_CONFIDENCE) / self.looks


def pass_order(positions: Sequence[int], number: int) -> list[int]:
    """The contenders of pass `number` in the order they are measured: forward in even passes, backward in odd."""
    return list(positions) if number % 2 == 0 else list(positions)[::-1]


def still_open(figures: np.ndarray, candidates: Sequence[bool], log: bool = True,
               confidence: float = STOP_CONFIDENCE) -> list[int]:
    """The positions that take the next pass under the sequential rule: the leader first, then those it cannot yet
    tell apart from it (an interval of `confidence`, a look's, that holds no difference and leaves the tie band).
    `figures` is passes x contenders (NaN where a pass did not measure one); `candidates` says which may lead (all,
    where none may); `log`: compare ratios (FPS), else differences (cameras), with the tie band TIE_MARGIN of the
    leader's mean."""
    means = pass_adjusted_means(figures, log)
    leading = [i for i, c in enumerate(candidates) if c and np.isfinite(means[i])] or \
        [i for i in range(len(candidates)) if np.isfinite(means[i])]
    if not leading:
        return []
    leader = max(leading, key=lambda i: means[i])
    return [leader, *(i for i in range(len(candidates))
                      if i != leader and _open(figures, i, leader, means, log, confidence))]


def _open(figures: np.ndarray, i: int, leader: int, means: np.ndarray, log: bool, confidence: float) -> bool:
    found = paired_interval(figures[:, i], figures[:, leader], confidence, log=log)
    if found.n < 2:
        return True
    one, band = (1.0, TIE_MARGIN) if log else (0.0, TIE_MARGIN * abs(means[leader]))
    clear = found.low > one or found.high < one
    tied = found.low >= one - band and found.high <= one + band
    return not (clear or tied)


def run_rounds(measure: Measure, candidates: Sequence[bool], limits: RoundLimits, done: np.ndarray | None = None,
               stop: threading.Event | None = None, log: bool = True,
               clock: Callable[[], float] = time.perf_counter) -> np.ndarray:
    """Measure the contenders (one per entry of `candidates`, which says who may lead) in passes under the
    sequential rule and `limits`; returns every figure, passes x contenders, NaN where a pass did not measure one.

    `done` holds passes already measured (a resumed job's), in the same shape: a pass is only completed where a
    contender due in it lacks its figure, so a resumed run continues rather than repeats. The budget counts this
    call's seconds: a pass after the first `min_passes` starts only if, at the seconds per visit so far, it ends
    within `budget_s`. `stop` set ends it before the next visit."""
    count = len(candidates)
    rows = [list(row) for row in done] if done is not None else []
    started, visits = clock(), 0
    for number in range(limits.max_passes):
        if number == len(rows):
            rows.append([math.nan] * count)
        due = list(range(count)) if number < limits.min_passes else \
            still_open(np.array(rows[:number]), candidates, log, limits.look_confidence)
        if len(due) < 2:
            break
        todo = [i for i in pass_order(due, number) if math.isnan(rows[number][i])]
        if number >= limits.min_passes and todo and visits:
            spent = clock() - started
            if spent + spent / visits * len(todo) > limits.budget_s:
                break
        for position in todo:
            if stop is not None and stop.is_set():
                return _table(rows, count)
            figure = measure(position, number)
            visits += 1
            rows[number][position] = math.nan if figure is None else figure
    return _table(rows, count)


def _table(rows: list[list[float]], count: int) -> np.ndarray:
    """The figures as passes x contenders, without a last pass that measured nothing."""
    while rows and all(math.isnan(f) for f in rows[-1]):
        rows = rows[:-1]
    return np.array(rows, dtype=float).reshape(len(rows), count)
