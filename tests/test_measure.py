"""The measurement engine on the real CPU plugin."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ov_tuner.measure import MIN_COMPLETIONS_PER_SLICE, _slice_fps, measure
from ov_tuner.runtime import Runtime, open_model_source
from ov_tuner.schema import CompileKey, LatencyStats, Precision


@pytest.mark.parametrize(("streams", "nireq", "batch"), [(1, 1, 1), (2, 4, 2)])
def test_every_started_request_completes_inside_the_window(tiny_model: Path, streams: int, nireq: int,
                                                           batch: int) -> None:
    runtime = Runtime()
    model = runtime.read_model(open_model_source(tiny_model), Precision.FP32)
    runtime.reshape(model, batch, {})
    compiled, _ = runtime.compile(model, CompileKey("CPU", Precision.FP32, batch, streams), runtime.device_info("CPU"))
    m = measure(compiled, nireq=nireq, batch=batch, seconds=0.2, warmup_s=0.05)
    assert m.latencies_ms.size == m.requests >= nireq  # one latency per started request: none left in flight
    assert m.frames == m.requests * batch
    assert m.wall_s >= 0.2
    assert m.fps == pytest.approx(m.frames / m.wall_s)
    assert np.all(m.latencies_ms > 0)
    assert m.latency.max * 1e-3 <= m.wall_s  # each request started and ended inside the window
    assert len(m.slice_fps) >= 3
    assert sum(m.slice_fps) * (m.wall_s / len(m.slice_fps)) == pytest.approx(m.frames, rel=1e-6)


def test_slices_spread_completions_over_equal_time() -> None:
    window_ns = 1_000_000_000
    stamps = np.linspace(0, window_ns, 10 * MIN_COMPLETIONS_PER_SLICE, endpoint=False).astype(np.int64)
    fps = _slice_fps(stamps, window_ns, batch=2)
    assert len(fps) == 10
    assert fps == pytest.approx([2 * 200.0] * 10)
    assert _slice_fps(stamps[:40], window_ns, batch=1) == ()  # too few completions to slice


def test_latency_statistics() -> None:
    stats = LatencyStats.of(np.arange(1, 101, dtype=np.float64))
    assert (stats.median, stats.min, stats.max, stats.count) == (50.5, 1.0, 100.0, 100)
    assert stats.p90 == pytest.approx(90.1)
    assert stats.p99 == pytest.approx(99.01)
    with pytest.raises(ValueError):
        LatencyStats.of(np.array([]))
