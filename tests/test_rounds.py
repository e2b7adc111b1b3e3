"""The rounds engine and its sequential rule on constructed figures, the one paired interval, and the confirmation
round that runs on them on the real runtime."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from ov_tuner.devices.compiler import Compiler
from ov_tuner.devices.modelfile import open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.engine.rounds import RoundLimits, pass_order, run_rounds, still_open
from ov_tuner.schema import CompileInfo, ConfirmRule, PointConfig, Precision
from ov_tuner.schema.spec import FIRST_PASSES_SHARE, MIN_WINDOW_S
from ov_tuner.stats.headtohead import RERUN_SD, paired_ratio, round_fps
from ov_tuner.stats.interval import paired_interval, pass_adjusted_means
from ov_tuner.store.results import ResultStore
from ov_tuner.workloads.sweep.confirm import run_confirmation

LEADER = [100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 101.0, 99.0]
# Per contender, its figure in each pass: the leader; one clearly slower; one within 0.5% of the leader either way;
# one whose passes swing 25% either way, so that no number of passes here tells it apart or ties it.
FIGURES = [LEADER, [f / 2 for f in LEADER], [f * (0.995 if i % 2 == 0 else 1.005) for i, f in enumerate(LEADER)],
           [f * (0.75 if i % 2 == 0 else 1.15) for i, f in enumerate(LEADER)]]


class Recorder:
    """A measure callback that replays fixed figures and notes every visit (contender, pass); a visit costs one
    second of a clock of its own."""

    def __init__(self, figures: list[list[float]], stop_after: int | None = None) -> None:
        self.figures, self.visits, self.now = figures, list[tuple[int, int]](), 0.0
        self.stop, self.stop_after = threading.Event(), stop_after

    def __call__(self, position: int, number: int) -> float:
        self.visits.append((position, number))
        self.now += 1.0
        if self.stop_after is not None and len(self.visits) >= self.stop_after:
            self.stop.set()
        return self.figures[position][number]

    def clock(self) -> float:
        return self.now

    def passes(self, position: int) -> list[int]:
        return [number for p, number in self.visits if p == position]


def test_passes_alternate_direction() -> None:
    assert pass_order([0, 1, 2], 0) == [0, 1, 2] and pass_order([0, 1, 2], 1) == [2, 1, 0]
    seen = Recorder(FIGURES)
    run_rounds(seen, [True] * 4, RoundLimits(2, 2), clock=seen.clock)
    assert seen.visits == [(0, 0), (1, 0), (2, 0), (3, 0), (3, 1), (2, 1), (1, 1), (0, 1)]


def test_decided_contenders_stop_after_the_minimum_and_the_open_one_goes_on_with_the_leader() -> None:
    seen = Recorder(FIGURES)
    figures = run_rounds(seen, [True] * 4, RoundLimits(3, 8), clock=seen.clock)
    assert seen.passes(0) == list(range(8))  # the leader takes every pass
    assert seen.passes(1) == [0, 1, 2]  # clearly slower: decided after the minimum
    assert seen.passes(2) == [0, 1, 2]  # within the tie margin: decided too
    assert seen.passes(3) == list(range(8))  # never told apart: measured up to the most passes
    assert figures.shape == (8, 4) and np.isfinite(figures[:, 1]).sum() == 3
    assert figures[5, 3] == pytest.approx(FIGURES[3][5])


def test_a_baseline_is_no_leader_and_stops_once_its_interval_excludes_the_leader() -> None:
    """A baseline (not a candidate) clearly ahead of every candidate is decided: the gain over it is measured."""
    baseline = [f * 1.3 for f in LEADER]
    seen = Recorder([LEADER, FIGURES[3], baseline])
    run_rounds(seen, [True, True, False], RoundLimits(3, 6), clock=seen.clock)
    assert seen.passes(0) == list(range(6)) and seen.passes(2) == [0, 1, 2]
    assert still_open(np.array([LEADER[:3], baseline[:3]]).T, [True, False]) == [0]


def test_with_nothing_open_the_passes_end_at_the_minimum() -> None:
    seen = Recorder(FIGURES[:3])
    figures = run_rounds(seen, [True] * 3, RoundLimits(3, 8), clock=seen.clock)
    assert figures.shape == (3, 3) and len(seen.visits) == 9


def test_a_resumed_run_completes_the_pass_it_was_in_and_keeps_what_was_done() -> None:
    done = np.array([[FIGURES[c][r] for c in range(4)] for r in range(2)] + [[LEADER[2], math.nan, math.nan, 7.0]])
    seen = Recorder(FIGURES)
    figures = run_rounds(seen, [True] * 4, RoundLimits(3, 5), done=done, clock=seen.clock)
    assert seen.visits[:2] == [(1, 2), (2, 2)]  # the third pass's missing visits, forward as an even pass goes
    assert seen.visits[2:] == [(3, 3), (0, 3), (0, 4), (3, 4)]  # then only the leader and the open one
    assert figures[2, 3] == 7.0 and np.array_equal(figures[:2], done[:2])


def test_the_budget_ends_the_passes_after_the_minimum_but_never_before() -> None:
    """A visit costs a second: the minimum's 12 s run even on a 1 s budget; on 14 s one more pass of the two open
    contenders (2 s at 1 s a visit) fits, the next does not."""
    short = Recorder(FIGURES)
    run_rounds(short, [True] * 4, RoundLimits(3, 8, budget_s=1.0), clock=short.clock)
    assert len(short.visits) == 12
    fits = Recorder(FIGURES)
    run_rounds(fits, [True] * 4, RoundLimits(3, 8, budget_s=14.0), clock=fits.clock)
    assert len(fits.visits) == 14 and fits.passes(3) == [0, 1, 2, 3]


def test_stop_ends_the_passes_before_the_next_visit() -> None:
    seen = Recorder(FIGURES, stop_after=5)
    figures = run_rounds(seen, [True] * 4, RoundLimits(3, 8), stop=seen.stop, clock=seen.clock)
    assert len(seen.visits) == 5 and np.isfinite(figures).sum() == 5
    seen.stop.set()  # set before the first visit: nothing measured, an empty table
    assert run_rounds(seen, [True] * 4, RoundLimits(3, 8), stop=seen.stop).shape == (0, 4)


def test_the_interval_is_the_hand_computed_paired_t_interval() -> None:
    a, b = np.array([10.0, 12.0, 11.0, 13.0, 50.0]), np.array([9.0, 10.0, 10.0, 11.0, math.nan])
    found = paired_interval(a, b)  # the last pass misses b: pairs over the first four, differences 1 2 1 2
    half = 3.182 * math.sqrt(1 / 3) / 2  # t(3 df, 97.5%) * sd / sqrt(n)
    assert (found.value, found.low, found.high, found.n) == pytest.approx((1.5, 1.5 - half, 1.5 + half, 4))
    one = paired_interval(np.array([1.0, 2.0, 3.0]))  # no b: the interval of the mean itself
    assert (one.low, one.high) == pytest.approx((2 - 4.303 / math.sqrt(3), 2 + 4.303 / math.sqrt(3)))
    logs = np.log(a[:4] / b[:4])
    passes = 3.182 * logs.std(ddof=1) / 2
    wide = paired_interval(a, b, log=True, rerun_sd=0.05)
    assert math.log(wide.value) == pytest.approx(logs.mean())
    assert math.log(wide.high / wide.value) == pytest.approx(math.hypot(passes, 1.96 * 0.05))
    ratio = paired_ratio(a, b)
    assert (ratio.value, ratio.low, ratio.high) == pytest.approx((wide.value, wide.low, wide.high))
    assert RERUN_SD == 0.05
    assert math.isnan(paired_interval(np.array([1.0]), np.array([2.0])).low)  # one pass: no interval


def test_means_are_corrected_for_the_drift_in_the_passes_a_contender_missed() -> None:
    """B stopped after three passes; the host then slowed by 10% for A. B's plain mean (99) beats A's (95), but
    pass by pass B ran 1% below A."""
    figures = np.array([[100, 99], [100, 99], [100, 99], [90, math.nan], [90, math.nan], [90, math.nan]], float)
    means = pass_adjusted_means(figures)
    assert means[1] < means[0] == pytest.approx(95.0)
    assert means[1] / means[0] == pytest.approx(0.99)
    assert still_open(figures, [True, True])[0] == 0
    complete = np.array([[100.0, 80.0], [90.0, 70.0]])
    assert pass_adjusted_means(complete) == pytest.approx([95.0, 75.0])  # every pass taken: the plain means


def compiler(model: Path) -> Callable[[PointConfig], tuple[ov.CompiledModel, CompileInfo]]:
    runtime = Runtime()
    source, cpu = open_model_source(model), runtime.device_info("CPU")
    return lambda config: Compiler(runtime, source).compile(config.compile_key, cpu)


def test_the_confirmation_round_passes_follow_the_rule(tiny_model: Path, tmp_path: Path) -> None:
    """On the runtime, whatever the host's noise: every contender takes the minimum, and every later pass measures
    exactly what the rule said was open after the passes before it."""
    configs = [PointConfig("CPU", Precision.FP32, 1, s, n) for s, n in ((1, 1), (1, 2), (2, 2), (2, 1))]
    rule = ConfirmRule(passes=3, window_s=0.05, max_passes=7)
    with ResultStore(tmp_path / "r.db") as store:
        assert run_confirmation(compiler(tiny_model), configs, store, "CPU", rule) == 4
        (confirmation,) = store.confirmations()
    figures = round_fps(confirmation)
    assert confirmation.complete_passes()[:3] == [0, 1, 2] and figures.shape[0] <= 7
    for number in range(3, figures.shape[0]):
        look = RoundLimits(3, 7).look_confidence
        assert sorted(np.flatnonzero(np.isfinite(figures[number]))) == sorted(still_open(figures[:number], [True] * 4,
                                                                                             True, look))


def test_many_contenders_get_shorter_windows_so_the_first_passes_keep_within_the_budget() -> None:
    rule = ConfirmRule(passes=3, window_s=0.25)
    assert rule.window_for(4, 20.0) == 0.25  # 3 x 4 x 0.25 s = 3 s, well within 75% of 20 s
    shortened = rule.window_for(18, 10.0)
    assert shortened < 0.25 and 3 * 18 * shortened == pytest.approx(FIRST_PASSES_SHARE * 10.0)
    assert rule.window_for(18, 1.0) == MIN_WINDOW_S  # never so short that fill and drain outweigh the window
    assert rule.window_for(18, float("inf")) == 0.25
