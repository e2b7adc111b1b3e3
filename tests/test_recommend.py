"""Recommendation under a latency budget, and the copy-paste forms of a configuration."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import quick_spec
from factories import baseline, failed_point, make_point, round_of

from ov_tuner.analyse.accuracy import DEFAULT_LIMIT, NO_LIMIT, AccuracyLimit, excluded
from ov_tuner.analyse.recommend import NothingMeetsBudget, recommend
from ov_tuner.present.formats import deploy_snippets
from ov_tuner.schema import (
    Accuracy,
    Confirmation,
    Int8Options,
    Mode,
    OutputAccuracy,
    PointConfig,
    PointResult,
    Precision,
    Quantization,
)
from ov_tuner.store.results import load_results
from ov_tuner.workloads.sweep import run_sweep

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
    assert "-load_config load_config.json -nireq 4 -b 1" in snippets.benchmark_app_line  # benchmark_app refuses
    assert "-hint" not in snippets.benchmark_app and "-nstreams" not in snippets.benchmark_app  # -nstreams by a -hint
    assert json.loads(snippets.load_config) == {"CPU": snippets.properties}
    assert not any("caps NUM_STREAMS" in n for n in snippets.notes)
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


# -- the default accuracy limit ----------------------------------------------------------------------------------

FP32_2X4 = PointConfig("CPU", Precision.FP32, 1, 2, 4)
INT8_2X4 = PointConfig("CPU", Precision.INT8, 1, 2, 4)


def _compared(precision: Precision, cosine: float, top1: float | None) -> Accuracy:
    output = OutputAccuracy("scores", False, 0.1, 0.01, None, cosine, top1, None, 0.0)
    return Accuracy("CPU", precision, 1, 13, (output,))


def _quantization(images: bool) -> Quantization:
    return Quantization("/cache/m_int8.xml", False, 10, images, 13, 13, Int8Options(), "3.4.0", 1.0, False,
                        "ov-tuner quantize m.xml -o m_int8.xml")


def _int8_leads(int8_fps: float) -> tuple[list[PointResult], Confirmation]:
    """fp32 and int8 at 2 x 4, measured apart and head to head over four passes."""
    points = [make_point(2, 4, 100), make_point(2, 4, int8_fps, precision=Precision.INT8)]
    passes = {FP32_2X4: [100.0, 98.0, 102.0, 100.0], INT8_2X4: [int8_fps * f for f in (1.0, 0.98, 1.02, 1.01)]}
    return points, round_of(passes, {FP32_2X4: 20.0, INT8_2X4: 15.0})


@pytest.mark.parametrize(("cosine", "top1", "images", "figure"), [
    (0.926, None, True, "cosine"), (0.9999, 0.9, True, "top1"), (0.9999, 1.0, False, "generated")])
def test_by_default_a_faster_int8_that_leaves_fp32_is_held_back(cosine: float, top1: float | None, images: bool,
                                                                figure: str) -> None:
    """Outputs far from FP32 (cosine, top-1), or agreement measured on generated inputs, never make int8 the answer;
    the answer says what int8 would gain, head to head, and why it is held back."""
    points, round_ = _int8_leads(150)
    accuracies = [_compared(Precision.FP32, 1.0, 1.0), _compared(Precision.INT8, cosine, top1)]
    out = excluded(accuracies, DEFAULT_LIMIT, _quantization(images))
    rec = recommend(points, confirmations=[round_], excluded=out)
    assert rec.winner.config.precision is Precision.FP32
    assert rec.held_back is not None and rec.held_back.winner.config == INT8_2X4
    assert rec.held_back.breach.figure == figure
    assert rec.held_back.ratio is not None and rec.held_back.ratio.value == pytest.approx(1.5, rel=0.02)
    assert recommend(points, confirmations=[round_], excluded=excluded(accuracies, NO_LIMIT, _quantization(images))
                     ).winner.config == INT8_2X4  # --max-accuracy-loss none: deployed as measured


def test_an_int8_within_the_default_limit_and_calibrated_on_images_is_deployed() -> None:
    points, round_ = _int8_leads(150)
    accuracies = [_compared(Precision.FP32, 1.0, 1.0), _compared(Precision.INT8, 0.9995, 1.0)]
    rec = recommend(points, confirmations=[round_], excluded=excluded(accuracies, DEFAULT_LIMIT, _quantization(True)))
    assert rec.winner.config == INT8_2X4 and rec.held_back is None and rec.excluded == ()


def test_a_slower_int8_held_back_changes_nothing_and_is_not_called_a_loss() -> None:
    points, round_ = _int8_leads(60)
    accuracies = [_compared(Precision.FP32, 1.0, 1.0), _compared(Precision.INT8, 0.5, 0.5)]
    rec = recommend(points, confirmations=[round_], excluded=excluded(accuracies, DEFAULT_LIMIT, _quantization(True)))
    assert rec.winner.config == FP32_2X4 and rec.held_back is None and len(rec.excluded) == 1


def test_the_limit_reads_none_and_each_figure() -> None:
    assert AccuracyLimit.parse("none") == NO_LIMIT and not NO_LIMIT.proof_needed
    assert AccuracyLimit.parse("cosine=0.01,top1=1%,boxes=10%") == AccuracyLimit(0.99, 0.99, 0.9)
    assert DEFAULT_LIMIT.proof_needed


def test_openvino_default_is_held_back_with_the_precision_it_ran() -> None:
    """OpenVINO default asks for no precision and ran bf16 (read back): where bf16's outputs break the limit, the
    default is held back too, though it is filed under fp32."""
    default = baseline(Mode.DEFAULT, 2, 2, 150, ran="bf16")
    points = [make_point(2, 4, 100), default]
    round_ = round_of({FP32_2X4: [100.0, 98.0, 102.0, 100.0], default.config: [150.0, 147.0, 153.0, 151.0]},
                      {FP32_2X4: 20.0, default.config: 15.0})
    accuracies = [_compared(Precision.FP32, 1.0, 1.0), _compared(Precision.BF16, 0.74, None)]
    rec = recommend(points, confirmations=[round_], excluded=excluded(accuracies, DEFAULT_LIMIT))
    assert rec.winner.config == FP32_2X4
    assert rec.held_back is not None and rec.held_back.winner.config.mode is Mode.DEFAULT
    assert rec.answer is not None and any(g.figures.contender.config.mode is Mode.DEFAULT for g in rec.answer.gains)


def test_a_score_map_is_bounded_by_its_mask_not_its_cosine() -> None:
    """A sigmoid text map's cosine follows the noise of its background: its mask IoU stands in for it."""
    def mapped(cosine: float, mask: float) -> Accuracy:
        output = OutputAccuracy("map", False, 1.0, 0.01, None, cosine, None, None, 0.0, None, mask)
        return Accuracy("CPU", Precision.BF16, 1, 13, (output,))
    assert DEFAULT_LIMIT.breach(mapped(0.74, 0.976)) is None
    breach = DEFAULT_LIMIT.breach(mapped(0.999, 0.85))
    assert breach is not None and (breach.figure, breach.value) == ("mask", 0.85)
