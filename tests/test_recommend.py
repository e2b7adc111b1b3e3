"""Recommendation under a latency budget, and the copy-paste forms of a configuration."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import quick_spec
from factories import baseline, failed_point, make_point

from ov_tuner.analyse.recommend import NothingMeetsBudget, recommend
from ov_tuner.present.formats import deploy_snippets
from ov_tuner.schema import Mode, Precision
from ov_tuner.store.results import load_results
from ov_tuner.sweep import run_sweep

POINTS = [
    make_point(1, 1, 270, latency_ms=3.6),
    make_point(2, 2, 312, latency_ms=6.4),
    make_point(2, 4, 330, latency_ms=12.5),
    make_point(2, 4, 240, latency_ms=17.0, precision=Precision.FP16),
    failed_point(4, 8),
    baseline(Mode.THROUGHPUT, 2, 2, 300, latency_ms=6.6),
]


def test_without_a_budget_the_most_throughput_wins() -> None:
    rec = recommend(POINTS)
    assert (rec.winner.config.streams, rec.winner.config.nireq, rec.winner.fps) == (2, 4, 330)
    assert rec.runner_up is not None and rec.runner_up.fps == 312
    assert rec.candidates == 4
    assert rec.runner_up is not None and rec.runner_up.config == POINTS[1].config and not rec.confirmed
    (gain,) = rec.baselines
    assert gain.fps_gain == pytest.approx(0.10)


def test_a_budget_keeps_only_what_meets_it() -> None:
    rec = recommend(POINTS, max_latency_ms=10.0)
    assert (rec.winner.config.streams, rec.winner.config.nireq) == (2, 2)
    assert rec.candidates == 2
    assert rec.budget_ms == 10.0 and rec.percentile == 90


def test_the_budget_applies_to_the_chosen_percentile() -> None:
    assert recommend(POINTS, max_latency_ms=4.0, percentile=50).winner.config.nireq == 1
    with pytest.raises(ValueError):
        recommend(POINTS, percentile=75)


def test_filters_by_device_and_precision() -> None:
    assert recommend(POINTS, precision=Precision.FP16).winner.fps == 240
    with pytest.raises(NothingMeetsBudget, match="no measured configuration for GPU"):
        recommend(POINTS, device="GPU")


def test_a_budget_nothing_meets_names_the_fastest_point() -> None:
    expected = (r"no configuration meets p90 latency <= 2 ms; the fastest is "
                r"CPU fp32 batch 1 1 streams x 1 requests at 3\.60 ms p90 \(270 FPS\)")
    with pytest.raises(NothingMeetsBudget, match=expected):
        recommend(POINTS, max_latency_ms=2.0)


def test_snippets_carry_the_requested_properties() -> None:
    snippets = deploy_snippets(POINTS[2], "/models/m.xml")
    assert snippets.properties == {"INFERENCE_PRECISION_HINT": "f32", "NUM_STREAMS": "2",
                                   "PERFORMANCE_HINT": "THROUGHPUT"}
    expected = ("core.compile_model(model, 'CPU', {'INFERENCE_PRECISION_HINT': 'f32', 'NUM_STREAMS': '2', "
                "'PERFORMANCE_HINT': 'THROUGHPUT'})")
    assert expected in snippets.python
    assert "ov.AsyncInferQueue(compiled, 4)" in snippets.python
    assert "-hint throughput -nstreams 2 -nireq 4 -b 1 -infer_precision f32" in snippets.benchmark_app
    assert json.loads(snippets.load_config) == {"CPU": snippets.properties}
    assert snippets.notes == ()
    capped = deploy_snippets(make_point(2, 1, 100), "/models/m.xml")
    assert "benchmark_app's -nireq caps NUM_STREAMS" in capped.notes[0]


def test_the_python_snippet_runs(tiny_model: Path) -> None:
    point = make_point(2, 4, 100, batch=2)
    code = deploy_snippets(point, "/models/m.xml").python.replace("/models/m.xml", str(tiny_model))
    code += "assert compiled.get_property('NUM_STREAMS') == 2 and len(queue) == 4\n"
    code += "assert list(compiled.input(0).get_shape())[0] == 2\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_benchmark_app_accepts_the_load_config_file(tiny_model: Path, tmp_path: Path) -> None:
    """The JSON is given to OpenVINO's benchmark_app, which must run with those properties."""
    out = tmp_path / "r.db"
    run_sweep(quick_spec(tiny_model, out, streams=(2,), nireq=(2,)))
    (point,) = load_results(out).points
    config = tmp_path / "config.json"
    config.write_text(deploy_snippets(point, str(tiny_model)).load_config)
    app = Path(sys.executable).with_name("benchmark_app")
    done = subprocess.run([str(app), "-m", str(tiny_model), "-d", "CPU", "-load_config", str(config), "-nireq", "2",
                           "-shape", "[1,8,16,16]", "-t", "1"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert re.search(r"NUM_STREAMS: 2\b", done.stdout)
    assert "INFERENCE_PRECISION_HINT: <Type: 'float32'>" in done.stdout
