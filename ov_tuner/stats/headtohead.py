"""Head to head: what a confirmation round says about its contenders, as ratios with 95% intervals.

Within one pass every contender met the same host, so each pass pairs them. The ratio of two contenders is
the geometric mean of their per-pass FPS ratios. Its interval stands for what a rerun of the sweep on the same
host would give, so it has two parts (a random-effects model of passes within runs, e.g. Montgomery, Design
and Analysis of Experiments, 9th ed., section 13.1): Student's t over the passes' log-ratios with passes - 1
degrees of freedom (the paired t interval, section 2.5.1), which covers window noise and drift between
passes; and RERUN_SD, the spread of a ratio from one run to the next that no single round can show (the
host's state differs between runs: other tenants, clocks, memory placement). The two add in quadrature on the
log scale. A ratio whose interval holds 1.0 is "no measurable difference", never a speed-up.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ov_tuner.schema import Confirmation, Contender, LatencyStats
from ov_tuner.stats.interval import Z_QUANTILES, paired_interval, pass_adjusted_means

# The standard deviation of log(A / B) between runs of the same sweep on one host, beyond what the passes of one
# round show. Calibrated on reruns of the demo sweep (scripts/bench_repeat.py, three runs each): the run-to-run
# standard deviations of nine stated gains (over the LATENCY and THROUGHPUT hints and OpenVINO default on 2-core
# AMD EPYC VMs, 0.015-0.097, and bf16/fp32 on a 16-core Xeon VM, 0.04), pooled over their 18 degrees of freedom:
# 0.053. A round's own passes often claimed 0.01-0.03 where the next run moved by 0.07.
RERUN_SD = 0.05
# How far from 1.0 a ratio may lie for two configurations to count as within noise of each other when the choice
# between them is made by cost (ov_tuner.analyse.confirmed), and for a round to call a pair settled.
TIE_MARGIN = 0.05


@dataclass(frozen=True)
class Ratio:
    """A / B of two contenders' FPS, with its interval (95% unless said), from `passes` paired passes."""

    value: float
    low: float
    high: float
    passes: int
    confidence: float = 0.95

    @property
    def clear(self) -> bool:
        """The interval excludes 1.0: a measurable difference."""
        return self.low > 1 or self.high < 1

    def within_margin(self) -> bool:
        """No measurable difference, and the whole interval within TIE_MARGIN of 1.0."""
        return not self.clear and self.low >= 1 - TIE_MARGIN and self.high <= 1 + TIE_MARGIN

    def reciprocal(self) -> Ratio:
        """B / A, with the interval turned around."""
        return Ratio(1 / self.value, 1 / self.high, 1 / self.low, self.passes, self.confidence)

    def as_json(self) -> dict[str, float]:
        """The figures as numbers for JSON: ratio and its interval."""
        return {"ratio": self.value, "low": self.low, "high": self.high, "confidence": self.confidence,
                "passes": self.passes}


@dataclass(frozen=True)
class RoundFigures:
    """One contender's figures over the passes it took in its round: `fps` their mean, corrected for the host's
    drift in the passes it missed (stats.interval.pass_adjusted_means), so that contenders with fewer passes
    compare fairly with the leader."""

    contender: Contender
    fps: float
    latency: LatencyStats
    windows: int

    def latency_ms(self, percentile: int) -> float:
        return {50: self.latency.median, 90: self.latency.p90, 99: self.latency.p99}[percentile]


@dataclass(frozen=True)
class HeadToHead:
    """A confirmation round read as ratios: per contender its figures, and any pair's ratio over the passes that
    measured both (a round's later passes may follow only the contenders it could not yet tell apart)."""

    confirmation: Confirmation
    figures: tuple[RoundFigures, ...]
    _fps: np.ndarray  # passes x contenders, NaN where a pass did not measure a contender
    _p90: np.ndarray  # passes x contenders: each pass's p90 request latency, NaN where not measured
    leader: RoundFigures | None = None  # the most FPS over the round
    against_leader: tuple[Ratio | None, ...] = ()  # each contender's FPS over the leader's (None: the leader's own)

    @classmethod
    def of(cls, confirmation: Confirmation) -> HeadToHead | None:
        """None until two passes measured every contender: no interval can be had before."""
        if len(confirmation.complete_passes()) < 2:
            return None
        fps = round_fps(confirmation)
        index = {n: i for i, n in enumerate(sorted({w.pass_number for w in confirmation.windows}))}
        p90 = np.full_like(fps, np.nan)
        latencies: list[list[np.ndarray]] = [[] for _ in confirmation.contenders]
        for w in confirmation.windows:
            p90[index[w.pass_number], w.contender] = (np.percentile(w.latencies_ms, 90) if w.latencies_ms.size
                                                      else np.nan)
            latencies[w.contender].append(w.latencies_ms)
        means = pass_adjusted_means(fps)
        figures = tuple(RoundFigures(c, float(means[i]), LatencyStats.of(np.concatenate(latencies[i])),
                                     int(np.isfinite(fps[:, i]).sum()))
                        for i, c in enumerate(confirmation.contenders))
        found = cls(confirmation, figures, fps, p90)
        leader = max(figures, key=lambda f: f.fps)
        return replace(found, leader=leader, against_leader=tuple(
            None if f is leader else found.ratio(f.contender, leader.contender) for f in figures))

    def ratio(self, a: Contender, b: Contender, confidence: float = 0.95, rerun: bool = True) -> Ratio:
        """FPS of `a` over `b`, paired by pass, with an interval of `confidence` (0.95, or 0.999 for a stricter
        call) that covers a rerun (RERUN_SD) unless `rerun` is False: then only this round's passes, which is
        what more passes of this round can still narrow."""
        return self._paired(self._fps, a, b, confidence, rerun)

    def p90_ratio(self, a: Contender, b: Contender, confidence: float = 0.95) -> Ratio | None:
        """p90 request latency of `a` over `b`, paired by pass (each pass's p90 of its window), with an interval
        that covers a rerun as the FPS ratio's does; None where fewer than two passes hold latencies of both."""
        columns = self._p90[:, [self.confirmation.contenders.index(c) for c in (a, b)]]
        if np.isfinite(columns).all(axis=1).sum() < 2:
            return None
        return self._paired(self._p90, a, b, confidence, True)

    def _paired(self, values: np.ndarray, a: Contender, b: Contender, confidence: float, rerun: bool) -> Ratio:
        contenders = self.confirmation.contenders
        return paired_ratio(values[:, contenders.index(a)], values[:, contenders.index(b)], confidence, rerun)

    def visit_seconds(self, contender: Contender) -> float:
        """The seconds a visit's window of `contender` measured, on the mean (fill and drain not counted)."""
        index = self.confirmation.contenders.index(contender)
        seconds = [w.window.seconds for w in self.confirmation.windows if w.contender == index]
        return sum(seconds) / len(seconds) if seconds else 0.0

    def figures_of(self, contender: Contender) -> RoundFigures:
        return self.figures[self.confirmation.contenders.index(contender)]


def round_fps(confirmation: Confirmation) -> np.ndarray:
    """Each window's FPS as passes x contenders, NaN where a pass did not measure a contender."""
    passes = sorted({w.pass_number for w in confirmation.windows})
    index = {n: i for i, n in enumerate(passes)}
    fps = np.full((len(passes), len(confirmation.contenders)), np.nan)
    for w in confirmation.windows:
        fps[index[w.pass_number], w.contender] = w.window.fps
    return fps


def rerun_floor(confidence: float = 0.95) -> float:
    """The part of a stated ratio's half-width (log scale) that covers a rerun (RERUN_SD): no pass of this run
    narrows it (ov_tuner.stats.settle)."""
    return Z_QUANTILES[confidence] * RERUN_SD


def paired_ratio(a: np.ndarray, b: np.ndarray, confidence: float = 0.95, rerun: bool = True) -> Ratio:
    """A figure of `a` over `b`'s, measured side by side in passes (NaN where a pass missed one): the geometric mean
    of the per-pass ratios, with a t interval of `confidence` that also covers a rerun (RERUN_SD) unless `rerun` is
    False. At least two passes must hold both."""
    found = paired_interval(a, b, confidence, log=True, rerun_sd=RERUN_SD if rerun else 0.0)
    return Ratio(found.value, found.low, found.high, found.n, confidence)
