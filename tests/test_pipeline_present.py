"""What the pipeline answer shows: its rows, tables, figures and report from a record made by hand, every figure the
rows print kept in its JSON, the OVMS and DL Streamer forms checked as the single-model ones are, and the Python form
run on tiny models, compiling what the answer says."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from factories import figures_missing
from matplotlib.patches import Rectangle
from pipeline_models import ABOVE, tiny_classifier, tiny_clip, tiny_detector
from rich.console import Console
from test_deploy_formats import BIN, DLSTREAMER_PROPERTIES, OVMS_SCHEMA
from test_renderers import constructed_results

from ov_tuner.analyse.answer import answer_of
from ov_tuner.present.deploy import deploy_form
from ov_tuner.present.deploy_format import DeployFormat
from ov_tuner.present.envelope import ANSWER_SCHEMA_VERSION
from ov_tuner.schema import Box, CameraTarget, Precision
from ov_tuner.stats.headtohead import Ratio
from ov_tuner.workloads.pipeline.answer import camera_gain, deployed, verdict
from ov_tuner.workloads.pipeline.answer_record import (
    CameraGain,
    HarnessFigures,
    PipelineAnswer,
    RoundCameras,
    StageShare,
    Tried,
    Verdict,
)
from ov_tuner.workloads.pipeline.present.answer_json import pipeline_answer_json
from ov_tuner.workloads.pipeline.present.deploy_forms import PIPELINE_FORMS
from ov_tuner.workloads.pipeline.present.document import print_pipeline
from ov_tuner.workloads.pipeline.present.figures import cameras_figure, stages_figure
from ov_tuner.workloads.pipeline.present.forms import pipeline_dlstreamer, pipeline_ovms, pipeline_python
from ov_tuner.workloads.pipeline.present.report import build_pipeline_report
from ov_tuner.workloads.pipeline.present.words import pipeline_rows, stage_text, tried_cameras_text
from ov_tuner.workloads.pipeline.schema import (
    OPENVINO_DEFAULT,
    DetectionCount,
    HarnessCeiling,
    Origin,
    Pipeline,
    PipelineStage,
    Split,
    StageRan,
    StageSetting,
    VideoSource,
)
from ov_tuner.workloads.sweep.present.answer_json import answer_json

ANSWER = Split((StageSetting(1, 2, 1), StageSetting(1, 2, 1)), 1)
SOLO = Split((StageSetting(2, 4), StageSetting(2, 4)), 1)
DEFAULT = Split((OPENVINO_DEFAULT, OPENVINO_DEFAULT), 1)
SHARED = Split((StageSetting(1, 2, 1), StageSetting(1, 1, 1)), 0)
WORSE = Split((StageSetting(1, 1, 1), StageSetting(1, 1, 1)), 1)


def ran(nireq: int, streams: int = 1, precision: str = "bf16", threads: int = 1) -> StageRan:
    properties = (("PERFORMANCE_HINT", "THROUGHPUT"), ("NUM_STREAMS", str(streams)),
                  ("INFERENCE_NUM_THREADS", str(threads)), ("INFERENCE_PRECISION_HINT", precision))
    return StageRan(properties, nireq, streams, precision)


PASSES = (1, 2, 3, 4, 5)


def judged(gain: CameraGain) -> CameraGain:
    """A constructed gain with the verdict the analysis gives its figures."""
    return dataclasses.replace(gain, verdict=verdict(gain))


# Five passes' camera windows: 4 and 5 served in each, 6 in none.
EDGE_AT_5 = ((4.0, True),) * 5 + ((5.0, True),) * 5 + ((6.0, False),) * 5


def make_answer(detector: str = "/models/detect.xml", classifier: str = "/models/classify.xml",
                video: str | None = "/videos/street.mp4", **changes: object) -> PipelineAnswer:
    """A detector then a classifier per detection: 5 cameras at 15 FPS within p99 200 ms, 2.0 (1.1..2.9) more than
    the solo-tuned models together, no different from OpenVINO default; the classifier the bottleneck."""
    stages = (PipelineStage("detect", detector), PipelineStage("classify", classifier,
                                                               per_detection=DetectionCount("scores", 0.5, 8)))
    pipeline = Pipeline(stages, VideoSource(video, 160, 120), CameraTarget(15, 200))
    answer_ran = (ran(2), ran(2))
    answer = PipelineAnswer(
        pipeline=pipeline, split=ANSWER, ran=answer_ran, cameras=5, finished=True,
        rounds=(RoundCameras(ANSWER, None, (5, 5, 5, 5, 5), answer_ran, (16.2, 16.0, 16.4, 16.2, 16.2), PASSES,
                             EDGE_AT_5),
                RoundCameras(SOLO, Origin.SOLO, (3, 3, 3, 3, 3), (ran(4, 2), ran(4, 2)), (17.0,) * 5, PASSES),
                RoundCameras(DEFAULT, Origin.DEFAULT, (4, 5, 5, 4, 5), (ran(2, 2, "f32", 0), ran(2, 2, "f32", 0)),
                             (18.0, 15.4, 15.6, 18.2, 15.5), PASSES)),
        gains=(judged(CameraGain(Origin.SOLO, 2.0, 1.1, 2.9, 5, Ratio(1.67, 1.4, 1.9, 5), Ratio(1.59, 1.45, 1.74, 5))),
               judged(CameraGain(Origin.DEFAULT, 0.4, -0.3, 1.1, 5, None, Ratio(1.08, 0.97, 1.2, 5)))),
        shares=(StageShare("decode", 1.0, 1.5, 0.2, 0.3, 1), StageShare("detect", 1.0, 3.0, 1.0, 0.6, 2),
                StageShare("classify", 3.0, 4.1 / 3, 4.0, 0.97, 2)),
        bottleneck="classify", overloaded_at=6,
        tried=(Tried(DEFAULT, Origin.DEFAULT, 4, True, 5), Tried(SOLO, Origin.SOLO, 3, True, 6),
               Tried(SHARED, Origin.SHARED, 4, True, 5), Tried(ANSWER, Origin.NEIGHBOUR, 5, True, 7),
               Tried(WORSE, Origin.NEIGHBOUR, 2, False, 2)),
        solo=(StageSetting(2, 4), StageSetting(2, 4)),
        box=Box(2, (0, 1), None, None, None), from_rounds=True)
    return dataclasses.replace(answer, **changes)  # type: ignore[arg-type]


def test_the_rows_say_the_cameras_each_gain_with_its_interval_and_the_bottleneck() -> None:
    answer = make_answer()
    rows = dict(pipeline_rows(answer))
    found, frames = answer.rounds[0].walked, answer.rounds[0].frames_held
    assert found is not None and found.low < 5 < found.high
    assert frames is not None and frames[1] < 81 < frames[2]
    assert rows["serves"] == (f"5 cameras (95%: {found.low:g}..{found.high:g}) at 15 FPS each, p99 within 200 ms: the "
                              "windows of 5 passes side by side, pooled (at the edge: 5 met 5 of 5, 6 met 0 of 5); at "
                              "5 cameras it held up to 16.2 FPS each (95%: 14.7..17.9); 81 frames/s in all over its "
                              f"passes (95%: {frames[1]:.0f}..{frames[2]:.0f})")
    assert rows["split"] == ("detect CPU bf16 1 stream x 2 requests, 1 thread | classify CPU bf16 1 stream x 2 "
                             "requests, 1 thread | decode 1 thread")
    # an int8 stage is named int8, as a sweep names it, not by the u8 math it read back
    int8 = dataclasses.replace(answer.pipeline.stages[1], precision=Precision.INT8)
    assert stage_text(int8, StageSetting(1, 2, 1), ran(2, precision="u8")) == (
        "classify CPU int8 1 stream x 2 requests, 1 thread")
    assert rows["vs solo-tuned"] == ("+2.0 cameras (95%: +1.1..+2.9) and 1.59x the frames a second held (95%: "
                                     "1.45..1.74x) over every model at its own solo answer, run together: 3.0 -> 5.0 "
                                     "cameras, 5 passes")
    assert rows["vs default"].startswith("not shown to differ from every model at OpenVINO default, run together "
                                         "(+0.4 cameras (95%: -0.3..+1.1) and 1.08x the frames a second held (95%: "
                                         "0.97..1.20x)): 4.6 -> 5.0 cameras")
    assert rows["bottleneck"] == ("classify: its 2 requests busy 97% of the time at 6 cameras; per frame (3 runs) it "
                                  "takes 4.1 ms at work and 12.0 ms waiting")
    assert rows["measured in"] == "all 2 CPUs: no quota; cpuset 0-1"


@pytest.mark.parametrize(("cameras", "held", "expected", "words"), [
    ((2.0, 1.1, 2.9), (1.59, 1.45, 1.74), Verdict.MORE, "+2.0 cameras (95%: +1.1..+2.9) and 1.59x"),
    ((-1.0, -1.8, -0.2), (0.8, 0.7, 0.9), Verdict.FEWER, "-1.0 cameras (95%: -1.8..-0.2) and 0.80x"),
    ((0.4, -0.3, 1.1), (1.08, 0.97, 1.2), Verdict.NOT_APART, "not shown to differ from every model at OpenVINO "
     "default"),
    # the demo's: a camera gain whose interval excludes 0 beside a rate whose interval holds 1
    ((1.4, 0.7, 2.1), (1.14, 0.95, 1.35), Verdict.SPLIT,
     "not shown to differ from every model at OpenVINO default, run together: +1.4 cameras (95%: +0.7..+2.1) shows a "
     "change, but 1.14x the frames a second held (95%: 0.95..1.35x) may show none"),
    ((0.2, -0.1, 0.5), (1.2, 1.1, 1.3), Verdict.SPLIT, "1.20x the frames a second held (95%: 1.10..1.30x) shows a "
     "change, but +0.2 cameras (95%: -0.1..+0.5) may show none"),
])
def test_each_verdict_is_made_once_in_the_analysis_and_worded_as_its_figures_say(
        cameras: tuple[float, float, float], held: tuple[float, float, float], expected: Verdict, words: str) -> None:
    gain = judged(CameraGain(Origin.DEFAULT, *cameras, 5, None, Ratio(*held, 5)))
    assert gain.verdict is expected
    row = dict(pipeline_rows(make_answer(gains=(gain,))))["vs default"]
    assert words in row
    told_apart = expected in (Verdict.MORE, Verdict.FEWER)
    assert row.startswith("not shown to differ") is not told_apart
    payload = pipeline_answer_json(make_answer(gains=(gain,)))
    assert [(g["verdict"], g["measurable"]) for g in payload["gains"]] == [(expected.value, told_apart)]


@pytest.mark.parametrize(("carried", "reached", "limited"), [(90.0, True, True), (400.0, True, False),
                                                               (90.0, False, False)])
def test_the_harness_row_says_whether_ov_tuner_or_the_device_set_the_answer(carried: float, reached: bool,
                                                                            limited: bool) -> None:
    """The answer holds 81 frames/s (5 cameras at 16.2): within 80% of a ceiling of 90 that was reached, the harness
    set it; a ceiling of 400, or one never reached, did not."""
    ceiling = HarnessCeiling(ANSWER, 5, carried, reached, decode_ms=2.0, runs_per_frame=(1.0, 3.0),
                             solo_fps=(400.0, 1200.0), cores=2)
    answer = make_answer(harness=HarnessFigures(ceiling, 81.0))
    rows = dict(pipeline_rows(answer))
    assert answer.harness is not None and answer.harness.limited is limited
    assert rows["harness"].startswith("limited by ov-tuner's load harness") is limited
    assert rows["bottleneck"].startswith("ov-tuner's load harness, not a stage") is limited
    bound = 1 / (1 / 400 + 3 / 1200 + 0.002 / 2)
    assert f"is {bound:.0f} frames/s, and the answer holds {81 / bound:.0%} of it" in rows["harness"]
    assert (" or more" in rows["harness"]) is not reached
    assert pipeline_answer_json(answer)["harness"]["limited"] is limited


def test_a_camera_gain_the_same_in_every_pass_states_no_zero_wide_interval() -> None:
    """The demo once printed '+1.0 cameras (95%: +1.0..+1.0)': every pass served one camera more."""
    gain = judged(CameraGain(Origin.DEFAULT, 1.0, 1.0, 1.0, 3, None, Ratio(1.21, 1.06, 1.37, 3)))
    row = dict(pipeline_rows(make_answer(gains=(gain,))))["vs default"]
    assert gain.verdict is Verdict.MORE
    assert row.startswith("+1.0 cameras in every pass and 1.21x the frames a second held (95%: 1.06..1.37x) over")
    assert "+1.0..+1.0" not in row


def test_an_answer_stopped_before_its_passes_says_so_without_nan_or_empty_figures() -> None:
    """Stopped in its first pass: no NaN, no '0.0 ->', no '0 passes' in any row or in the JSON's words."""
    nan = float("nan")
    gain = judged(CameraGain(Origin.DEFAULT, nan, nan, nan, 0, None, None))
    empty = RoundCameras(DEFAULT, Origin.DEFAULT, (), (), (), ())
    answer = make_answer(gains=(gain,), rounds=(RoundCameras(ANSWER, None, (), (), (), ()), empty),
                         from_rounds=False, finished=False)
    rows = dict(pipeline_rows(answer))
    assert rows["vs default"] == ("not compared with every model at OpenVINO default, run together: 0 passes side by "
                                  "side finished, and an interval needs two (the run was stopped before its passes)")
    said = " ".join(rows.values())
    assert "nan" not in said.lower() and "0.0 ->" not in said
    assert "NaN" not in json.dumps(pipeline_answer_json(answer))


def test_the_headline_never_states_a_zero_wide_interval() -> None:
    """Passes that all served the same whole count, and held the same rate, give the cameras and the rate an interval
    a rerun would fall in."""
    same = RoundCameras(ANSWER, None, (5, 5, 5), (ran(2), ran(2)), (16.0, 16.0, 16.0), (1, 2, 3),
                        ((5.0, True),) * 3 + ((6.0, False),) * 3)
    rows = dict(pipeline_rows(make_answer(rounds=(same,))))
    low, high = same.held_interval or (0.0, 0.0)
    assert low < 16.0 < high
    assert same.walked is not None and same.walked.low < 5 < same.walked.high
    assert rows["serves"].startswith(f"5 cameras (95%: {same.walked.low:g}..{same.walked.high:g}) at 15 FPS")
    frames = same.frames_held
    assert frames is not None and frames[1] < 80 < frames[2]
    assert rows["serves"].endswith(f"at 5 cameras it held up to 16.0 FPS each (95%: {low:.1f}..{high:.1f}); 80 "
                                   f"frames/s in all over its passes (95%: {frames[1]:.0f}..{frames[2]:.0f})")


def test_no_single_pass_sets_the_headline() -> None:
    """The passes' camera windows are pooled: one pass that served a count the others failed at moves neither the
    headline nor the rate held at it, and a count met as often as missed is not served (the median of the passes,
    which a single window decided, would read 6 and 5 here)."""
    noisy = RoundCameras(ANSWER, None, (5, 6, 6), (ran(2), ran(2)), (16.4, 15.1, 15.2), (1, 2, 3),
                         ((5.0, True),) * 3 + ((6.0, True), (6.0, True), (6.0, False), (6.0, False), (7.0, False)))
    assert noisy.median == 6 and noisy.cameras == 5
    rows = dict(pipeline_rows(make_answer(cameras=noisy.cameras, rounds=(noisy,))))
    assert rows["serves"].startswith("5 cameras (95%: ")
    assert "(at the edge: 5 met 3 of 3, 6 met 2 of 4)" in rows["serves"]
    assert "at 5 cameras it held up to 16.4 FPS each; " in rows["serves"]  # one pass at 5: no interval
    # what a rerun compares: the frames a second of every pass, whatever count each served
    assert noisy.frames_held is not None
    value, low, high = noisy.frames_held
    assert value == pytest.approx(float(np.exp(np.mean(np.log([5 * 16.4, 6 * 15.1, 6 * 15.2])))))
    assert rows["serves"].endswith(f"; {value:.0f} frames/s in all over its passes (95%: {low:.0f}..{high:.0f})")
    older = RoundCameras(ANSWER, None, (5, 6, 5), (ran(2), ran(2)), (16.0, 15.1, 16.4), (1, 2, 3))
    assert "the median of 3 passes side by side" in dict(pipeline_rows(make_answer(rounds=(older,))))["serves"]


def test_an_interrupted_search_a_default_stage_and_the_answer_being_a_baseline_are_said() -> None:
    interrupted = dict(pipeline_rows(make_answer(finished=False, from_rounds=False)))
    assert interrupted["serves"] == ("at least 5 cameras at 15 FPS each, p99 within 200 ms (search interrupted; no "
                                     "pass side by side finished)")
    default = make_answer(split=DEFAULT, ran=(ran(2, 2, "f32", 0), ran(2, 2, "f32", 0)))
    rows = dict(pipeline_rows(default))
    assert rows["split"].startswith("detect CPU: OpenVINO default (2 x 2, ran f32) | classify CPU: OpenVINO default")
    assert rows["vs default"] == ("the answer is every model at OpenVINO default, run together: no split served "
                                  "more in the rounds side by side")
    assert rows["vs solo-tuned"].startswith("+2.0 cameras")
    leader = RoundCameras(ANSWER, Origin.NEIGHBOUR, (5, 5, 5, 5, 5), (ran(2), ran(2)), (16.2,) * 5, PASSES)
    kept = make_answer(split=DEFAULT, leader=leader, leader_gain=judged(
        CameraGain(Origin.DEFAULT, 0.4, -0.3, 1.1, 5, None, Ratio(1.08, 0.97, 1.2, 5))))
    assert dict(pipeline_rows(kept))["vs default"] == (
        "the answer is every model at OpenVINO default, run together: the rounds' leader, the neighbour split, was "
        "not shown to serve more (+0.4 cameras (95%: -0.3..+1.1) and 1.08x the frames a second held (95%: "
        "0.97..1.20x) against it, 5 passes): the simpler is kept until another is shown to serve more")


@pytest.mark.parametrize(("searched", "deploys"), [
    ((6, 6, 6, 6), Origin.DEFAULT),  # the search's split not told apart from every model left alone: the simpler
    ((8, 8, 9, 8), None),  # more cameras and more frames held in every pass: shown to serve more
])
def test_the_simplest_contender_no_other_is_shown_to_beat_is_deployed(searched: tuple[int, ...],
                                                                      deploys: Origin | None) -> None:
    """The passes' point estimates do not decide: the search's split holds the most frames a second in both cases."""
    numbers = (1, 2, 3, 4)
    contenders = (RoundCameras(ANSWER, None, searched, (), (16.4, 16.0, 16.5, 16.3), numbers),
                  RoundCameras(SOLO, Origin.SOLO, (4, 4, 4, 4), (), (15.5, 15.2, 15.8, 15.4), numbers),
                  RoundCameras(DEFAULT, Origin.DEFAULT, (6, 6, 6, 6), (), (15.6, 16.3, 15.2, 16.1), numbers))
    held = [float(r.arrivals.mean()) for r in contenders]
    assert held[0] == max(held)
    chosen = deployed(contenders, held, {ANSWER: Origin.NEIGHBOUR})
    assert chosen is not None and contenders[chosen].origin is deploys


def test_every_figure_the_rows_print_is_in_the_json() -> None:
    answer = make_answer()
    payload = pipeline_answer_json(answer)
    assert payload["schema_version"] == ANSWER_SCHEMA_VERSION and payload["says"] == dict(pipeline_rows(answer))
    assert figures_missing(pipeline_rows(answer), payload) == []
    json.dumps(payload)  # plain JSON values


def test_the_pipeline_and_the_single_model_answer_come_in_one_envelope() -> None:
    """Both JSON answers open with the same schema version and their kind, and end with the same keys, the box the
    answer was measured in worded alike; a pipeline has nothing held back and no caveat."""
    pipeline = make_answer()
    single = answer_json(dataclasses.replace(answer_of(constructed_results()), box=pipeline.box))
    piped = pipeline_answer_json(pipeline)
    envelope = ["held_back", "caveat", "box", "says"]
    assert list(single)[:2] == list(piped)[:2] == ["schema_version", "kind"]
    assert list(single)[-4:] == list(piped)[-4:] == envelope
    assert single["schema_version"] == piped["schema_version"] == ANSWER_SCHEMA_VERSION
    assert (single["kind"], piped["kind"]) == ("model", "pipeline")
    assert single["box"] == piped["box"] == {"host_cpus": 2, "cpuset": [0, 1], "quota_cpus": None,
                                             "quota_source": None, "memory_limit_bytes": None, "cpus": 2}
    assert piped["held_back"] is None and piped["caveat"] is None


def _keys(value: object, path: str = "") -> list[tuple[str, str]]:
    """Every key of a JSON value with where it sits ("gains.fps_ratio"), lists looked into."""
    if isinstance(value, dict):
        return [(path, key) for key in value] + [k for key, v in value.items() for k in _keys(v, f"{path}.{key}")]
    if isinstance(value, list):
        return [k for v in value for k in _keys(v, path)]
    return []


def test_every_count_of_passes_in_the_answers_json_is_keyed_passes() -> None:
    """One name per thing (docs/glossary.md): a round's repetitions are passes in the JSON as on the command line
    (schema 2). "round" names only the step: a pipeline's `rounds` (its contenders side by side) and `from_rounds`."""
    single = answer_json(answer_of(constructed_results()))
    piped = pipeline_answer_json(make_answer())
    assert single["schema_version"] == piped["schema_version"] == ANSWER_SCHEMA_VERSION == 2
    assert [(where, key) for where, key in _keys(single) if "round" in key] == []
    assert [(where, key) for where, key in _keys(piped) if "round" in key] == [("", "from_rounds"), ("", "rounds")]
    assert single["gains"] and all(g["fps_ratio"]["passes"] >= 2 for g in single["gains"])
    assert [g["passes"] for g in piped["gains"]] == [5, 5]
    assert piped["rounds"][0]["per_pass"] == [5, 5, 5, 5, 5] and piped["rounds"][0]["passes"] == [1, 2, 3, 4, 5]


def test_the_tables_list_the_splits_most_cameras_first_and_the_stages(tmp_path: Path) -> None:
    console = Console(record=True, width=250)
    print_pipeline(console, make_answer(), full=True)
    text = console.export_text()
    assert "classify (bottleneck)" in text and "Every split tried" in text
    tried = text.split("Every split tried")[1]
    order = [tried.index(words) for words in ("neighbour, the answer", "OpenVINO default", "cores shared by cost",
                                              "solo-tuned", "at least 2")]
    assert order == sorted(order)
    short = Console(record=True, width=250)
    print_pipeline(short, make_answer())
    assert short.export_text().startswith("serves") and "Every split" not in short.export_text()


def test_the_figures_draw_a_bar_per_split_and_two_per_stage() -> None:
    answer = make_answer()
    cameras = cameras_figure(answer)
    (ax,) = cameras.axes
    assert len(ax.patches) == len(answer.tried) and len(ax.get_xticklabels()) == len(answer.tried)
    assert ax.get_xticklabels()[0].get_text().startswith("detect 1 x 2, 1 thread")  # the answer: most cameras
    stages = stages_figure(answer)
    (ax,) = stages.axes
    assert len(ax.patches) == 2 * len(answer.shares)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["decode", "detect", "classify"]


def test_the_report_writes_markdown_and_html_with_both_figures(tmp_path: Path) -> None:
    written = build_pipeline_report(make_answer(), tmp_path / "report")
    html, markdown, *images = written
    assert (html.name, markdown.name) == ("report.html", "report.md") and len(images) == 2
    assert all(p.is_file() and p.stat().st_size > 0 for p in written)
    page = markdown.read_text()
    assert "classify: its 2 requests busy 97%" in page and all(p.name in page for p in images)
    assert "classify: its 2 requests busy 97%" in html.read_text() and html.read_text().count("<img") == 2


def test_the_ovms_config_follows_the_ovms_schema_and_lists_both_models() -> None:
    answer = make_answer()
    config = json.loads(pipeline_ovms(answer))
    jsonschema.validate(config, OVMS_SCHEMA)
    entries = [e["config"] for e in config["model_config_list"]]
    assert [e["name"] for e in entries] == ["detect", "classify"]
    assert all(e["nireq"] == 2 and e["target_device"] == "CPU" for e in entries)
    assert entries[1]["plugin_config"] == dict(answer.ran[1].properties)


def test_the_dlstreamer_line_names_both_models_with_their_properties() -> None:
    answer = make_answer()
    words = shlex.split(pipeline_dlstreamer(answer))
    assert words[:3] == ["gst-launch-1.0", "filesrc", "location=/videos/street.mp4"]
    for element, stage, stage_ran in zip(("gvadetect", "gvaclassify"), answer.pipeline.stages, answer.ran,
                                         strict=True):
        start = words.index(element) + 1
        properties = dict(w.split("=", 1) for w in words[start:words.index("!", start)])
        assert set(properties) <= DLSTREAMER_PROPERTIES
        assert properties["model"] == stage.model and properties["nireq"] == str(stage_ran.nireq)
        assert properties["inference-interval"] == str(stage.every)
        assert dict(p.split("=", 1) for p in properties["ie-config"].split(",")) == dict(stage_ran.properties)
    assert words[-1] == "sync=false"


def test_the_python_form_runs_and_compiles_what_the_answer_says(tmp_path: Path) -> None:
    """The script, run on a tiny detector and classifier over a clip, reads back what each stage was given: the
    answer's streams, threads and precision (f32, set explicitly: a host's default may be bf16) and its requests."""
    detector = tiny_detector(tmp_path / "detect.xml")
    classifier = tiny_classifier(tmp_path / "classify.xml", batch=-1)  # a dynamic batch: the form sets it to 1
    clip = tiny_clip(tmp_path / "clip.avi")
    answer = make_answer(str(detector), str(classifier), str(clip), ran=(ran(2, precision="f32"),
                                                                         ran(3, precision="f32")))
    detect, classify = answer.pipeline.stages
    stages = (detect, dataclasses.replace(classify, every=2))  # on frames 0, 2, .. 8: 3 detections each
    answer = dataclasses.replace(answer, pipeline=dataclasses.replace(answer.pipeline, stages=stages))
    script = tmp_path / "pipeline.py"
    script.write_text(pipeline_python(answer))
    done = subprocess.run([sys.executable, str(script), "--frames", "10"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    stages = json.loads(lines[0])["stages"]
    expected = [{"name": s.name, "nireq": r.nireq, **{k: v for k, v in r.properties if k != "PERFORMANCE_HINT"}}
                for s, r in zip(answer.pipeline.stages, answer.ran, strict=True)]
    assert stages == expected
    ended = json.loads(lines[-1])
    assert ended["frames"] == 10 and ended["runs"] == {"detect": 10, "classify": 5 * ABOVE}


def test_the_forms_load_the_files_a_deployment_makes_beside_the_users_never_the_cache(tmp_path: Path) -> None:
    """A detector that ran its FP16 IR from ov-tuner's cache and a classifier that ran its own file at OpenVINO
    default: the forms name the FP16 IR beside the detector and the classifier's own file, and give the step that
    makes the first; run as given, the step and the script work. An int8 stage names the INT8 IR its recorded
    quantize line writes (that line first), one whose model came quantized its own file, and a file stored before
    the IR's precision was kept the file the stage ran."""
    detector = tiny_detector(tmp_path / "detect.xml")
    classifier = tiny_classifier(tmp_path / "classify.xml", batch=-1)
    cache = "/root/.cache/ov-tuner/ir/0123"
    answer = make_answer(str(detector), str(classifier), str(tiny_clip(tmp_path / "clip.avi")),
                         ran=(dataclasses.replace(ran(2, precision="f32"), ir=f"{cache}/detect_fp16.xml",
                                                  ir_precision="fp16"),
                              dataclasses.replace(ran(3, precision="f32"), ir=str(classifier), ir_precision="fp32")))
    for fmt in (DeployFormat.PYTHON, DeployFormat.DLSTREAMER):
        form = deploy_form(fmt, PIPELINE_FORMS, answer)
        assert cache not in form.text and str(tmp_path / "detect_fp16.xml") in form.text, fmt
        assert str(classifier) in form.text and len(form.first) == 1 and "compress_to_fp16=True" in form.first[0]
    form = deploy_form(DeployFormat.PYTHON, PIPELINE_FORMS, answer)
    on_path = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}  # python3: the one with OpenVINO
    assert subprocess.run(form.first[0], shell=True, env=on_path, timeout=120).returncode == 0
    script = tmp_path / "pipeline.py"
    script.write_text(form.text)
    done = subprocess.run([sys.executable, str(script), "--frames", "4"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]

    line = "ov-tuner quantize /models/detect.xml -o /models/detect_int8.xml --images photos"
    int8 = dataclasses.replace(ran(2), ir=f"{cache}/detect_int8.xml", ir_precision="int8", quantize=line)
    given = dataclasses.replace(ran(2), ir="/models/classify.xml", ir_precision="int8")
    form = deploy_form(DeployFormat.PYTHON, PIPELINE_FORMS, make_answer(ran=(int8, given)))
    assert "/models/detect_int8.xml" in form.text and "'/models/classify.xml'" in form.text and cache not in form.text
    assert form.first == (line,)
    stored_before = dataclasses.replace(ran(2), ir=f"{cache}/detect_int8.xml")
    assert f"{cache}/detect_int8.xml" in deploy_form(DeployFormat.PYTHON, PIPELINE_FORMS,
                                                      make_answer(ran=(stored_before, ran(2)))).text


def test_a_neighbour_that_failed_its_one_trial_reads_as_the_count_it_failed_not_as_zero() -> None:
    probe = Tried(WORSE, Origin.NEIGHBOUR, 0, True, 1, fails_at=6)
    assert tried_cameras_text(probe) == "fails at 6"
    assert tried_cameras_text(Tried(WORSE, Origin.NEIGHBOUR, 0, True, 1, fails_at=1)) == "0"
    answer = dataclasses.replace(make_answer(), tried=(*make_answer().tried, probe))
    ax = cameras_figure(answer).axes[0]
    # listed apart under the axes with its split, not drawn as a bar or a marker: it has no figure
    assert "not served at the one count tried: fails at 6: " in ax.get_xlabel()
    assert len([p for p in ax.patches if isinstance(p, Rectangle) and p.get_height() > 0]) == len(make_answer().tried)
    assert not any(text.get_text() == "fails at 6" for text in ax.texts)
    # many are counted, not listed: the figure keeps its width
    many = dataclasses.replace(make_answer(), tried=(*make_answer().tried, *(probe,) * 8))
    note = cameras_figure(many).axes[0].get_xlabel()
    assert "not served at the one count tried: 8 neighbours, at 6 cameras" in note
    assert max(len(line) for line in note.splitlines()) <= 140


def test_a_gain_left_undecided_says_about_how_many_more_passes_would_settle_a_camera() -> None:
    """Up to two cameras more in two of four passes: not told apart; its passes cost 20 s (10 s of windows each side),
    so the analysis states the passes and the time that would settle one camera, and the words and JSON carry them."""
    mine = RoundCameras(ANSWER, None, (5, 7, 5, 6), (), (15.0,) * 4, (1, 2, 3, 4), seconds=40.0)
    theirs = RoundCameras(DEFAULT, Origin.DEFAULT, (5, 5, 5, 5), (), (15.0,) * 4, (1, 2, 3, 4), seconds=40.0)
    gain = camera_gain(mine, theirs)
    assert gain.verdict is Verdict.NOT_APART and gain.settle is not None and gain.settle.more > 1
    assert gain.settle.difference == 1.0 and gain.settle.seconds == gain.settle.more * 20.0
    row = dict(pipeline_rows(make_answer(gains=(gain,))))["vs default"]
    assert f"({gain.settle.more} more passes) would settle a difference of 1 camera" in row
    assert pipeline_answer_json(make_answer(gains=(gain,)))["gains"][0]["to_settle"]["passes"] == gain.settle.more
    decided = camera_gain(RoundCameras(ANSWER, None, (7, 7, 8, 7), (), (15.0,) * 4, (1, 2, 3, 4), seconds=40.0), theirs)
    assert decided.verdict is Verdict.MORE and decided.settle is None
