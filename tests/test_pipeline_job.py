"""`ov-tuner pipeline` for real, on the tiny detector and classifier and a generated clip: a short run stores its
trials and prints the answer, Ctrl-C keeps them and a rerun resumes, the forms it hands out run what it measured, and
bad input is one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from factories import assert_one_line, count_rows, ov_tuner, start_until
from pipeline_models import tiny_classifier, tiny_clip, tiny_detector
from test_deploy_formats import BIN

from ov_tuner.devices.decisions import auto_streams
from ov_tuner.devices.runtime import Runtime
from ov_tuner.engine.budget import TimeBudget
from ov_tuner.engine.cameras import judged
from ov_tuner.present.deploy import deploy_form
from ov_tuner.present.deploy_format import DeployFormat
from ov_tuner.schema import Precision
from ov_tuner.workloads.pipeline.answer import pipeline_answer
from ov_tuner.workloads.pipeline.answer_record import Verdict
from ov_tuner.workloads.pipeline.job import run_pipeline
from ov_tuner.workloads.pipeline.present.deploy_forms import PIPELINE_FORMS
from ov_tuner.workloads.pipeline.present.words import pipeline_rows
from ov_tuner.workloads.pipeline.results_file import load_pipeline
from ov_tuner.workloads.pipeline.schema import Origin
from ov_tuner.workloads.pipeline.search import PER_STREAM
from ov_tuner.workloads.pipeline.workload import ROUND_CONTENDERS, SOLO_PASSES, VISIT_TRIALS, PipelineSpec

PIPELINE = """
fps = 400
max_latency_ms = 100
[video]
file = "clip.avi"
[[stage]]
name = "detect"
model = "det.xml"
[[stage]]
name = "classify"
model = "cls.xml"
precision = "fp16"
per_detection = { output = "scores", threshold = 0.5, most = 2 }
"""
QUICK = ["--seconds", "0.3", "--lead-in", "0.05", "--passes", "2", "--max-trials", "2", "--solo-seconds", "0.1"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pipeline-job")
    tiny_detector(folder / "det.xml")
    tiny_classifier(folder / "cls.xml", batch=-1)  # a dynamic batch, as most exported models have
    tiny_clip(folder / "clip.avi")
    (folder / "p.toml").write_text(PIPELINE)
    return folder


@pytest.fixture(scope="module")
def tuned(folder: Path) -> tuple[Path, subprocess.CompletedProcess[str]]:
    db = folder / "tuned.db"
    return db, ov_tuner("pipeline", str(folder / "p.toml"), "--out", str(db), *QUICK, timeout=600)


def test_a_short_run_stores_every_trial_and_prints_the_answer(tuned: tuple[Path, subprocess.CompletedProcess[str]],
                                                              ) -> None:
    db, done = tuned
    assert done.returncode == 0, done.stdout + done.stderr
    for row in ("serves", "split", "vs solo-tuned", "vs default", "bottleneck"):
        assert row in done.stdout
    stored = load_pipeline(db)
    assert stored is not None
    (cpu,) = Runtime().resolve_devices(("CPU",))
    settings = len(auto_streams(cpu)) * len(PER_STREAM)  # streams 1, 2, 4, ... up to this CPU's range, x 1 or 2 each
    assert len(stored.solo) == 2 * SOLO_PASSES * settings  # both stages, every setting, each pass
    searched = [t for t in stored.trials if t.pass_number == 0]
    passes = {t.pass_number for t in stored.trials} - {0}
    assert passes == {1, 2}
    assert len({t.split for t in searched}) >= 3  # the three starting points at least
    assert all(t.ran and len(t.stages) == 3 for t in stored.trials)
    assert sum(line.startswith(("search |", "pass ")) for line in done.stdout.splitlines()) == len(stored.trials)
    above = [(t.pass_number, t.fps) for t in stored.trials if t.fps is not None]
    assert above and all(number > 0 and fps > stored.pipeline.target.fps for number, fps in above)
    plotted = ov_tuner("plot", str(db), "--out-dir", str(db.parent / "plots"), "--format", "svg")
    assert plotted.stdout.split() == [w for name in ("pipeline_cameras.svg", "pipeline_stages.svg")
                                      for w in ("wrote", str(db.parent / "plots" / name))], plotted.stderr


def test_the_answer_and_its_headline_come_from_the_rounds(tuned: tuple[Path, subprocess.CompletedProcess[str]],
                                                           ) -> None:
    db, done = tuned
    stored = load_pipeline(db)
    assert stored is not None
    answer = pipeline_answer(stored)
    assert answer is not None and answer.from_rounds
    mine = answer.rounds[0]
    assert mine.origin is None and mine.split == answer.split and len(mine.per_pass) == 2
    # the headline is what both passes' camera windows say pooled (a failure on a busy host set aside, as the walk
    # sets it aside), with an interval around it
    target = stored.pipeline.target
    walks = [t.load for t in stored.trials if t.pass_number in mine.numbers and t.split == mine.split and t.fps is None]
    counted = judged(walks, target)
    kept = {id(t) for t in counted}
    assert all(t.disturbed and not t.serves(target) for t in walks if id(t) not in kept)  # only busy-host failures
    assert mine.windows == tuple((float(t.cameras), t.serves(target)) for t in counted) and mine.walked is not None
    assert answer.cameras == mine.walked.served and mine.walked.low <= answer.cameras <= mine.walked.high
    assert len(mine.per_pass_fps) == 2 and all(f >= stored.pipeline.target.fps for f in mine.per_pass_fps)
    held = {r.split: r.arrivals.mean() for r in answer.rounds if r.per_pass_fps}
    # the simplest contender no other was shown to beat; where it does not lead, the leader is stated against it
    assert all(g.verdict is not Verdict.FEWER for g in answer.gains)
    if held[answer.split] < max(held.values()):
        assert answer.leader is not None and answer.leader_gain is not None
        assert held[answer.leader.split] == max(held.values()) and answer.leader_gain.verdict is not Verdict.MORE
    assert "side by side" in done.stdout and "frames/s in all" in done.stdout


def test_the_harness_ceiling_is_recorded_at_the_answers_split_and_stated_beside_it(
        tuned: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    db, done = tuned
    stored = load_pipeline(db)
    assert stored is not None and stored.harness is not None
    answer = pipeline_answer(stored)
    assert answer is not None and answer.harness is not None
    ceiling = stored.harness
    assert ceiling.split == answer.split and ceiling.cameras == answer.cameras
    assert ceiling.frames_per_s > 0 and ceiling.decode_ms > 0 and len(ceiling.solo_fps) == 2
    # the detector reports 3 scores above the threshold, of which the classifier takes its most, 2
    assert ceiling.runs_per_frame == pytest.approx((1.0, 2.0))
    assert 0 < ceiling.bound_frames_per_s < float("inf")
    assert any(line.startswith("harness ") for line in done.stdout.splitlines())
    payload = json.loads(ov_tuner("recommend", str(db), "--json").stdout)
    assert payload["harness"]["frames_per_s"] == pytest.approx(ceiling.frames_per_s)
    assert payload["harness"]["limited"] == answer.harness.limited
    assert "the device's bound from each stage alone" in payload["says"]["harness"]


def test_show_and_recommend_render_the_stored_answer(tuned: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    db, _ = tuned
    shown = ov_tuner("show", str(db))
    assert shown.returncode == 0, shown.stderr
    assert "Every split tried" in shown.stdout and "Where a frame's time goes" in shown.stdout
    answer = json.loads(ov_tuner("recommend", str(db), "--json").stdout)
    assert answer["cameras"] >= 1 and answer["bottleneck"]
    line = ov_tuner("recommend", str(db), "--format", "dlstreamer").stdout
    stored = load_pipeline(db)
    assert stored is not None
    ran = pipeline_answer(stored)
    assert ran is not None
    classify = "cls_fp16.xml" if ran.ran[1].ir_precision == Precision.FP16.value else "cls.xml"  # fp16, or default
    assert "/det.xml" in line and f"/{classify}" in line
    refused = ov_tuner("recommend", str(db), "--format", "kubernetes")
    assert_one_line(refused, "python, ovms, dlstreamer or json")


def test_the_python_form_compiles_what_the_search_read_back(folder: Path,
                                                            tuned: tuple[Path, subprocess.CompletedProcess[str]],
                                                            ) -> None:
    """The classifier runs fp16 where the answer's split sets its streams (its FP16 IR in ov-tuner's cache), FP32 at
    OpenVINO default: the form loads the model files beside the user's, made by the steps it gives first, never the
    cache's; run as given, it compiles what each stage read back."""
    db, _ = tuned
    stored = load_pipeline(db)
    assert stored is not None
    answer = pipeline_answer(stored)
    assert answer is not None
    form = deploy_form(DeployFormat.PYTHON, PIPELINE_FORMS, answer)
    assert ".cache" not in form.text
    for stage, ran_stage in zip(answer.pipeline.stages, answer.ran, strict=True):
        assert stage.precision is not None
        assert ran_stage.ir_precision in (stage.precision.value, Precision.FP32.value)  # its own, or the default's
        fp16 = ran_stage.ir_precision == Precision.FP16.value
        model = Path(stage.model)
        assert str(model.with_name(f"{model.stem}_fp16.xml") if fp16 else model) in form.text
    assert len(form.first) == sum(r.ir_precision == Precision.FP16.value for r in answer.ran)
    on_path = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}  # python3: the one with OpenVINO
    for step in form.first:
        assert subprocess.run(step, shell=True, cwd=folder, env=on_path, timeout=120).returncode == 0, step
    script = folder / "run_pipeline.py"
    script.write_text(form.text)
    ran = subprocess.run([sys.executable, str(script), "--frames", "8"], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    read_back = json.loads(ran.stdout.splitlines()[0])["stages"]
    for stage, ran_stage in zip(read_back, answer.ran, strict=True):
        properties = dict(ran_stage.properties)
        assert stage["nireq"] == ran_stage.nireq
        for key in ("NUM_STREAMS", "INFERENCE_NUM_THREADS", "INFERENCE_PRECISION_HINT"):
            if key in properties:
                assert str(stage[key]) == properties[key], (key, stage, properties)


def test_a_budget_that_cuts_the_search_short_still_runs_the_rounds_on_baselines_it_never_searched(
        folder: Path, tmp_path: Path) -> None:
    """The demo's pipeline once crashed here: its time budget ended the search after its first trial, and the rounds
    looked up a baseline's search trials that were never made. A constructed clock, 10 s a trial or solo window,
    leaves room for the solo windows, one search trial and the rounds' first passes alone."""
    now = [0.0]

    def tick(*_: object) -> None:
        now[0] += 10.0

    (cpu,) = Runtime().resolve_devices(("CPU",))
    solo = 2 * SOLO_PASSES * len(auto_streams(cpu)) * len(PER_STREAM)
    rounds_least = ROUND_CONTENDERS * 2 * VISIT_TRIALS  # two passes of each contender, a visit about 6 trials
    budget = TimeBudget((solo + 1 + rounds_least) * 10.0 + 5.0, clock=lambda: now[0])
    spec = PipelineSpec(folder / "p.toml", tmp_path / "cut.db", seconds=0.3, lead_in_s=0.05, passes=2, max_trials=2,
                        solo_s=0.1)
    answer = run_pipeline(spec, on_trial=tick, on_solo=tick, budget=budget)
    stored = load_pipeline(tmp_path / "cut.db")
    assert answer is not None and stored is not None
    assert len({t.split for t in stored.trials if t.pass_number == 0}) == 1  # the search cut after its first trial
    assert {r.origin for r in answer.rounds} >= {Origin.SOLO, Origin.DEFAULT} - {answer.rounds[0].origin}
    # every contender of the rounds is named among the splits tried, the unsearched baseline at no count, so the
    # answer may be any of them (the bench's pipeline ended in 'generator raised StopIteration' deploying one)
    assert {r.split for r in answer.rounds} <= {t.split for t in answer.tried}
    assert all(t.cameras == 0 and not t.finished for t in answer.tried if t.trials == 0)
    assert "vs default" in dict(pipeline_rows(answer))


def test_ctrl_c_keeps_the_trials_and_the_same_command_resumes(folder: Path) -> None:
    db = folder / "resumed.db"
    args = ["pipeline", str(folder / "p.toml"), "--out", str(db), *QUICK]
    proc = start_until(args, db, 3, table="pipeline_trials")
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "kept in" in stderr
    kept, solo = count_rows(db, "pipeline_trials"), count_rows(db, "pipeline_solo")
    assert kept >= 3
    before = load_pipeline(db)
    again = ov_tuner(*args, timeout=600)
    assert again.returncode == 0, again.stderr
    after = load_pipeline(db)
    assert before is not None and after is not None
    assert count_rows(db, "pipeline_solo") == solo  # the solo settings were not measured again
    assert len(after.trials) > kept
    assert [t.split for t in after.trials[:kept]] == [t.split for t in before.trials]
    assert {t.pass_number for t in after.trials} >= {1, 2}


@pytest.mark.parametrize(("change", "said"), [
    (('model = "det.xml"', 'model = "gone.xml"'), "gone.xml does not exist"),
    (("fps = 400", "fps = 400\ncolour = 3"), "unknown key 'colour'"),
    (('name = "classify"', 'name = "classify"\ndevice = "NPU.7"'), "NPU.7 is not present"),
])
def test_bad_pipeline_files_are_one_line(folder: Path, change: tuple[str, str], said: str) -> None:
    (folder / "bad.toml").write_text(PIPELINE.replace(*change))
    assert_one_line(ov_tuner("pipeline", str(folder / "bad.toml"), "--out", str(folder / "bad.db")), said)


def test_a_video_opencv_cannot_open_is_one_line(folder: Path) -> None:
    (folder / "text.avi").write_text("not a video")
    (folder / "bad_video.toml").write_text(PIPELINE.replace("clip.avi", "text.avi"))
    assert_one_line(ov_tuner("pipeline", str(folder / "bad_video.toml"), "--out", str(folder / "v.db")), "text.avi")


def test_a_rate_no_split_serves_is_one_line_and_its_trials_are_kept(folder: Path) -> None:
    (folder / "fast.toml").write_text(PIPELINE.replace("fps = 400", "fps = 4000").replace("max_latency_ms = 100",
                                                                                          "max_latency_ms = 0.05"))
    db = folder / "fast.db"
    done = ov_tuner("pipeline", str(folder / "fast.toml"), "--out", str(db), *QUICK, timeout=600)
    assert_one_line(done, "no split served one camera", str(db))
    assert count_rows(db, "pipeline_trials") >= 3


def test_a_model_with_dynamic_sizes_needs_them_in_its_stage(folder: Path, spatially_dynamic_model: Path) -> None:
    text = PIPELINE.replace('model = "det.xml"', f'model = "{spatially_dynamic_model}"')
    (folder / "dynamic.toml").write_text(text)
    done = ov_tuner("pipeline", str(folder / "dynamic.toml"), "--out", str(folder / "dynamic.db"))
    assert_one_line(done, "stage 'detect'", "dynamic sizes besides the batch", "shape = { image = [1, 3, 224, 224] }")
    assert not (folder / "dynamic.db").exists()  # refused before anything was stored


def test_a_stages_answer_file_is_never_the_output(folder: Path, swept_db: Path, tiny_model: Path) -> None:
    """The sweep's own model as the first stage: its results file would take the pipeline's records."""
    text = PIPELINE.replace('model = "det.xml"', f'model = "{tiny_model}"\nanswer = "{swept_db}"')
    (folder / "answered.toml").write_text(text)
    before = swept_db.read_bytes()
    done = ov_tuner("pipeline", str(folder / "answered.toml"), "--out", str(swept_db))
    assert_one_line(done, str(swept_db))
    assert swept_db.read_bytes() == before


def test_a_counted_output_the_stage_before_lacks_is_refused_before_any_measurement(folder: Path) -> None:
    (folder / "nosuch.toml").write_text(PIPELINE.replace('output = "scores"', 'output = "nosuch"'))
    db = folder / "nosuch.db"
    done = ov_tuner("pipeline", str(folder / "nosuch.toml"), "--out", str(db))
    assert_one_line(done, "stage 'classify'", "'nosuch'", "stage 'detect'", "(its outputs: features, scores)")
    assert done.stdout == "" and not db.exists()  # no solo point measured, nothing stored


def test_a_stages_answer_of_another_model_is_refused_before_anything_is_measured(folder: Path,
                                                                                 swept_db: Path) -> None:
    (folder / "other.toml").write_text(PIPELINE.replace('model = "det.xml"',
                                                        f'model = "det.xml"\nanswer = "{swept_db}"'))
    db = folder / "other.db"
    done = ov_tuner("pipeline", str(folder / "other.toml"), "--out", str(db))
    assert_one_line(done, f"[[stage]] 1 answer {swept_db} was measured on another model", "det.xml")
    assert done.stdout == "" and not db.exists()


def test_pipelines_files_are_compared_and_reported_alone(tuned: tuple[Path, subprocess.CompletedProcess[str]],
                                                         swept_db: Path) -> None:
    """compare sets pipelines' files side by side (a fleet's hosts): each one's split and the cameras it serves, as
    its answer says them; report takes one pipeline's file at a time; a sweep's file beside it is one line."""
    db, _ = tuned
    compared = ov_tuner("compare", str(db), str(db))
    assert compared.returncode == 0, compared.stderr
    said = ov_tuner("recommend", str(db)).stdout
    lines = compared.stdout.splitlines()
    assert lines[:3] == [f"file 1: {db}", f"file 2: {db}", "differs: nothing recorded (the same host, model and "
                         "OpenVINO)"]
    for number in (1, 2):
        deploys = next(line for line in lines if line.startswith(f"file {number} deploys "))
        split = deploys.removeprefix(f"file {number} deploys ").split(", serving ")[0]
        assert " ".join(split.split()) in " ".join(said.split())  # the split the answer words
    assert_one_line(ov_tuner("compare", str(db), str(swept_db)), "compare reads files of one kind")
    assert_one_line(ov_tuner("report", str(db), str(db)), f"{db} is a pipeline's results file, reported one at a time")
    assert_one_line(ov_tuner("report", str(db), str(swept_db)), f"report reads files of one kind: {db} is a "
                    f"pipeline's, {swept_db} (a sweep's) not")
