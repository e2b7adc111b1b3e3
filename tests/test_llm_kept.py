"""A setting's pipeline kept across its trials (ov_tuner.workloads.llm.kept), on the tiny random GGUF: built once,
failing alone, never holding more than it may, ended with the run."""

from __future__ import annotations

import os
import signal
from dataclasses import replace
from pathlib import Path

import openvino_genai

from ov_tuner.workloads.llm.kept import KeptPipelines
from ov_tuner.workloads.llm.model_file import read_llm
from ov_tuner.workloads.llm.schema import PIPELINE_DEFAULT, SCHEDULER_DEFAULT, LlmLoad, LlmSetting
from ov_tuner.workloads.llm.trial import serve, trial_on

LOAD = LlmLoad(users=2, seconds=0.3, lead_in_s=0.1, prompt_tokens=(16, 24), output_tokens=(8, 8))


def _processes(pipelines: KeptPipelines) -> list[object]:
    return [child.process for child in pipelines._children.values()]


def test_a_kept_pipeline_runs_a_settings_trials_one_after_another_built_once(tiny_gguf: Path) -> None:
    model = read_llm(tiny_gguf)
    with KeptPipelines() as pipelines:
        trials = [pipelines.trial(model, "CPU", SCHEDULER_DEFAULT, replace(LOAD, users=users)) for users in (2, 3)]
        (process,) = _processes(pipelines)
    assert all(t.ok and t.ttft_ms.size >= 2 and t.output_tokens == 8 * t.ttft_ms.size for t in trials)
    # one build and one first request, which both trials report as their pipeline's
    assert trials[0].load_s == trials[1].load_s > 0 and trials[0].first_request_ms == trials[1].first_request_ms
    assert process.returncode is not None  # type: ignore[attr-defined]  # ended with the run


def test_a_trial_on_a_kept_pipeline_goes_on_from_the_users_requests_its_last_left_in_flight(tiny_gguf: Path) -> None:
    served = serve(read_llm(tiny_gguf), "CPU", SCHEDULER_DEFAULT, LOAD)
    first = trial_on(served, SCHEDULER_DEFAULT, replace(LOAD, users=3))
    left = served.paused.flights
    # every user has its next request in flight, none of them timed
    assert first.ok and {f.user for f in left} == {0, 1, 2} and len(left) == 3 and not any(f.counted for f in left)
    second = trial_on(served, SCHEDULER_DEFAULT, replace(LOAD, users=2))
    assert second.ok and {f.user for f in served.paused.flights} == {0, 1} and len(served.paused.flights) == 2
    # users 0 and 1's went on to their end in it; user 2's was cancelled by the trial that no longer had user 2
    status = openvino_genai.GenerationStatus
    assert [f.handle.get_status() for f in left] == [  # type: ignore[attr-defined]
        status.CANCEL if f.user == 2 else status.FINISHED for f in left]
    # the requests sent since are numbered after those it went on from: every request has a number of its own
    carried = {id(f) for f in left}
    assert min(f.number for f in served.paused.flights if id(f) not in carried) > max(f.number for f in left)


def test_users_a_trial_left_reading_their_answer_go_on_reading_in_the_next(tiny_gguf: Path) -> None:
    served = serve(read_llm(tiny_gguf), "CPU", SCHEDULER_DEFAULT, LOAD)
    reading = replace(LOAD, users=3, think_ms=300, seconds=1.0)  # a tiny model's request takes milliseconds
    first = trial_on(served, SCHEDULER_DEFAULT, reading)
    # every user is left in flight or reading, with no more than its 0.3 s of reading left
    assert first.ok and served.paused.users == {0, 1, 2} and served.paused.reading
    assert all(0 <= left <= 0.3 for left in served.paused.reading.values())
    second = trial_on(served, SCHEDULER_DEFAULT, replace(reading, users=2))
    assert second.ok and served.paused.users == {0, 1}  # user 2 left the load, reading or not
    served.stop()
    assert not served.paused.flights and not served.paused.reading


def test_a_kept_pipeline_whose_process_dies_fails_that_trial_and_the_next_builds_afresh(tiny_gguf: Path) -> None:
    model = read_llm(tiny_gguf)
    with KeptPipelines() as pipelines:
        first = pipelines.trial(model, "CPU", SCHEDULER_DEFAULT, LOAD)
        (process,) = _processes(pipelines)
        os.kill(process.pid, signal.SIGKILL)  # type: ignore[attr-defined]
        died = pipelines.trial(model, "CPU", SCHEDULER_DEFAULT, LOAD)
        assert not _processes(pipelines)
        again = pipelines.trial(model, "CPU", SCHEDULER_DEFAULT, LOAD)
    assert first.ok and again.ok and again.load_s != first.load_s
    assert not died.ok and died.error is not None and "SIGKILL" in died.error


def test_a_setting_the_device_refuses_is_a_failed_trial_and_is_not_kept(tiny_gguf: Path) -> None:
    with KeptPipelines() as pipelines:
        trial = pipelines.trial(read_llm(tiny_gguf), "CPU", LlmSetting(threads=-1), LOAD)
        assert not _processes(pipelines)
    assert not trial.ok and trial.error is not None and "INFERENCE_NUM_THREADS" in trial.error


def test_no_more_pipelines_are_kept_than_allowed_the_least_recently_used_ended_first(tiny_gguf: Path) -> None:
    model = read_llm(tiny_gguf)
    with KeptPipelines(most=1) as pipelines:
        pipelines.trial(model, "CPU", SCHEDULER_DEFAULT, LOAD)
        (first,) = _processes(pipelines)
        pipelines.trial(model, "CPU", PIPELINE_DEFAULT, LOAD)
        (second,) = _processes(pipelines)
        assert first.returncode is not None and second.returncode is None  # type: ignore[attr-defined]
