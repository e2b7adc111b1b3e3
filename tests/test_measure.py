"""The measurement engine on the real CPU plugin: completeness, windows, stopping, input modes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from ov_tuner.devices.compiler import Compiler
from ov_tuner.devices.modelfile import open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.measure.engine import RequestLoop, measure
from ov_tuner.schema import (
    FOREIGN_CPU_LIMIT,
    CompileKey,
    Ending,
    InputMode,
    LatencyStats,
    Measurement,
    Precision,
    StopRule,
    Window,
)
from ov_tuner.stats.interval import fps_interval


def compile_tiny(tiny_model: Path, streams: int = 1, batch: int = 1) -> ov.CompiledModel:
    runtime = Runtime()
    key = CompileKey("CPU", Precision.FP32, batch, streams)
    return Compiler(runtime, open_model_source(tiny_model)).compile(key, runtime.device_info("CPU"))[0]


@pytest.mark.parametrize(("streams", "nireq", "batch"), [(1, 1, 1), (2, 4, 2)])
def test_every_started_request_completes_inside_the_run(tiny_model: Path, streams: int, nireq: int,
                                                        batch: int) -> None:
    compiled = compile_tiny(tiny_model, streams, batch)
    m = measure(compiled, nireq, batch, StopRule(window_s=0.05, fixed_s=0.3), warmup_s=0.05)
    assert m.latencies_ms.size == m.requests >= nireq  # one latency per started request: none left in flight
    assert m.frames == m.requests * batch
    assert m.wall_s >= 0.3
    assert m.fps == pytest.approx(m.frames / m.wall_s)
    assert np.all(m.latencies_ms > 0)
    assert m.ended is Ending.FIXED  # a fixed-length run has no stability verdict
    assert len(m.windows) >= 3
    # windows are consecutive stretches: their completions and time add up to no more than the run's
    assert sum(w.requests for w in m.windows) <= m.requests
    assert sum(w.seconds for w in m.windows) <= m.wall_s
    assert all(w.fps == pytest.approx(w.requests * batch / w.seconds) for w in m.windows)
    assert 0 < m.client_cpu_share <= 1.0


def test_a_stable_run_stops_once_three_windows_agree(tiny_model: Path) -> None:
    rule = StopRule(window_s=0.05, tolerance=0.9, max_s=5.0)  # a loose tolerance: the first three agree
    m = measure(compile_tiny(tiny_model), 1, 1, rule, warmup_s=0.05)
    assert m.ended is Ending.SETTLED
    assert len(m.windows) == 3
    assert m.wall_s < 1.0


def test_an_unstable_run_stops_at_the_cap_and_says_so(tiny_model: Path) -> None:
    rule = StopRule(window_s=0.05, tolerance=0.0, max_s=0.4)  # exact agreement never happens
    m = measure(compile_tiny(tiny_model), 1, 1, rule, warmup_s=0.05)
    assert m.ended is Ending.UNSETTLED
    assert 0.4 <= m.wall_s < 1.0
    assert len(m.windows) >= 5


def test_a_point_that_cannot_win_stops_at_the_window_that_shows_it(tiny_model: Path) -> None:
    rule = StopRule(window_s=0.05, tolerance=0.0, max_s=5.0)  # would run to the cap: it never settles
    seen: list[int] = []

    def out_after_two(windows: list[Window]) -> Ending | None:
        seen.append(len(windows))
        return Ending.OUTPACED if len(windows) == 2 else None

    m = measure(compile_tiny(tiny_model), 1, 1, rule, warmup_s=0.05, verdict=out_after_two)
    assert m.ended is Ending.OUTPACED
    assert seen == [1, 2] and len(m.windows) == 2
    assert m.wall_s < 1.0
    assert m.latencies_ms.size == m.requests  # stopped early, still complete
    # a fixed-length run is never cut short
    fixed_run = StopRule(window_s=0.05, fixed_s=0.3)
    fixed = measure(compile_tiny(tiny_model), 1, 1, fixed_run, 0.0, verdict=lambda windows: Ending.OUTPACED)
    assert fixed.ended is Ending.FIXED and fixed.wall_s >= 0.3


def test_full_input_mode_copies_inputs_and_still_completes(tiny_model: Path) -> None:
    compiled = compile_tiny(tiny_model)
    m = measure(compiled, 2, 1, StopRule(window_s=0.05, fixed_s=0.2), 0.05, InputMode.FULL)
    assert m.latencies_ms.size == m.requests > 0


def test_stop_rule_agreement() -> None:
    rule = StopRule(tolerance=0.03)
    agree = [Window(100, 5.0, 10, 1), Window(101, 5.1, 10, 1), Window(102, 5.0, 10, 1)]
    assert rule.settled(agree)
    assert not rule.settled(agree[:2])
    assert not rule.settled([*agree[:2], Window(110, 5.0, 10, 1)])  # FPS moved 10%
    assert not rule.settled([*agree[:2], Window(101, 6.0, 10, 1)])  # latency moved 20%
    assert rule.settled([Window(50, 9, 10, 1), *agree])  # only the last three count
    with pytest.raises(ValueError):
        StopRule(settle_windows=1)


def test_fps_noise_figures() -> None:
    windows = tuple(Window(f, 1.0, 10, 1.0) for f in (98.0, 100.0, 102.0, 100.0))
    m = Measurement(40, 40, 4.0, np.ones(40), windows)
    assert m.fps_cv == pytest.approx(np.std([98, 100, 102, 100], ddof=1) / 100)
    low, high = fps_interval(windows)  # type: ignore[misc]
    half = 3.182 * np.std([98, 100, 102, 100], ddof=1) / 2  # t(0.975, 3 dof) * s / sqrt(4)
    assert (low, high) == pytest.approx((100 - half, 100 + half))
    assert fps_interval(windows[:1]) is None
    scattered = tuple(Window(f, 1.0, 10, 1.0) for f in (10.0, 400.0))  # t's interval reaches below no frames
    low, high = fps_interval(scattered)  # type: ignore[misc]
    assert low == 0.0 and high == pytest.approx(205 + 12.706 * np.std([10, 400], ddof=1) / np.sqrt(2), rel=1e-3)


def test_latency_statistics() -> None:
    stats = LatencyStats.of(np.arange(1, 101, dtype=np.float64))
    assert (stats.median, stats.min, stats.max, stats.count) == (50.5, 1.0, 100.0, 100)
    assert stats.p90 == pytest.approx(90.1)
    assert stats.p99 == pytest.approx(99.01)
    with pytest.raises(ValueError):
        LatencyStats.of(np.array([]))


def test_windows_measured_beside_busy_processes_on_every_core_are_flagged(tiny_model: Path) -> None:
    compiled = compile_tiny(tiny_model)
    rule = StopRule(window_s=0.3, fixed_s=1.5)
    quiet = measure(compiled, 1, 1, rule, 0.05)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)]
    try:
        time.sleep(0.3)
        busy = measure(compiled, 1, 1, rule, 0.05)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert all(w.foreign_cpu is not None and w.own_cpu_s for w in quiet.windows)  # Linux exposes them
    assert quiet.disturbed_windows == 0, [w.foreign_cpu for w in quiet.windows]
    assert len(busy.windows) >= 3 and busy.disturbed_windows == len(busy.windows), [w.foreign_cpu for w in busy.windows]
    assert min(w.foreign_cpu or 0 for w in busy.windows) > FOREIGN_CPU_LIMIT
    assert busy.process_cpu_s is not None and busy.cpu_ms_per_request is not None and busy.cpu_ms_per_request > 0


def test_disturbed_windows_are_set_aside_by_the_stopping_rule_and_the_figures() -> None:
    clean = [Window(100, 5.0, 100, 1.0, foreign_cpu=0.01), Window(101, 5.0, 101, 1.0, foreign_cpu=0.02)]
    busy = Window(60, 8.0, 60, 1.0, foreign_cpu=0.5)
    rule = StopRule(tolerance=0.03)
    assert rule.settled([clean[0], busy, clean[1], Window(100, 5.0, 100, 1.0)])  # the busy one does not count
    assert not rule.settled([clean[0], busy, clean[1]])  # and is not counted as one of the three
    m = Measurement(361, 361, 4.0, np.ones(361), (*clean, busy, Window(100, 5.0, 100, 1.0)))
    assert m.disturbed_windows == 1
    assert m.fps == pytest.approx(301 / 3)  # over the undisturbed windows alone
    assert m.fps_cv == pytest.approx(np.std([100, 101, 100], ddof=1) / np.mean([100, 101, 100]))
    everything_busy = Measurement(120, 120, 2.0, np.ones(120), (busy, busy))
    assert everything_busy.fps == pytest.approx(60)  # with no clean window, every window counts


def test_a_visit_is_one_window_from_completion_to_completion(default_model: Path) -> None:
    runtime = Runtime()
    compiled, _ = Compiler(runtime, open_model_source(default_model)).compile(CompileKey("CPU", Precision.FP32, 1, 2),
                                                                             runtime.device_info("CPU"))
    with RequestLoop(compiled, 2, 1) as loop:
        loop.warm_up(0.1)
        window, latencies = loop.visit(0.2)
        again, _ = loop.visit(0.2)  # the same queue serves the next visit
        brief, _ = loop.visit(1e-6, least_requests=5)  # a window due at once ends at its least completions
    assert window.seconds >= 0.2 and window.requests == latencies.size >= 16
    assert window.fps == pytest.approx(window.requests / window.seconds)
    assert again.requests >= 16 and brief.requests == 5
