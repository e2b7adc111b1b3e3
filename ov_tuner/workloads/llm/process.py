"""An LLM trial in a process of its own: `python -m ov_tuner.workloads.llm.process RESULT.json` reads the trial to run
(JSON on standard input), runs it (ov_tuner.workloads.llm.trial.run_trial) and writes the trial to RESULT.json; or,
asked to keep its pipeline (ov_tuner.workloads.llm.kept), runs a trial for each load it then reads, saying DONE after
each.

Why a process: a setting can end the process that runs it (with GenAI 2026.4.1 a u4 KV cache died in free() on a
CPU here), which no exception handler catches; in a child, the run goes on and the setting is a failed trial with the
reason. Each trial also gets its own peak memory, and nothing of one pipeline outlives it. The child ignores Ctrl-C:
the first stops the run after the trial under way, the second ends the child with the run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from ov_tuner.workloads.llm.logits import LogitChecks
from ov_tuner.workloads.llm.measured import LlmOutputs, LlmTrial
from ov_tuner.workloads.llm.schema import LlmLoad, LlmModel, LlmSetting

_ARRAYS = ("ttft_ms", "tpot_ms")
TRIAL, OUTPUTS, TEXT, KEPT = "trial", "outputs", "text", "kept"
# The most characters of a dead child's last line kept in the failed trial's reason.
SAID_CHARS = 160


def outputs_in_process(model: LlmModel, device: str, setting: LlmSetting, load: LlmLoad, reference: LlmModel | None,
                       with_default: bool = False) -> tuple[LlmOutputs, LogitChecks | None]:
    """What the model says at `setting` on the held-apart prompts (ov_tuner.workloads.llm.outputs.greedy_outputs,
    `reference` the model with its weights as given; None: the text alone, without the logits' checks), in a child;
    `with_default`: GenAI's scheduler default's logits' checks beside them."""
    found, ended = in_process(OUTPUTS if reference is not None else TEXT, model, device, setting, load, reference,
                              with_default=with_default)
    if found is None:
        return LlmOutputs(setting, error=ended), None
    beside = found.pop("default_checks")
    return (LlmOutputs(setting, tuple(tuple(s) for s in found["tokens"]), found["error"],
                       first_step_cosines=tuple(found["first_step_cosines"]),
                       next_token_shares=tuple(found["next_token_shares"]), asked=found["asked"],
                       reply=found["reply"]),
            None if beside is None else LogitChecks(tuple(beside["first_step_cosines"]),
                                                    tuple(beside["next_token_shares"])))


def in_process(task: str, model: LlmModel, device: str, setting: LlmSetting, load: LlmLoad,
               reference: LlmModel | None = None, with_default: bool = False) -> tuple[dict[str, Any] | None, str]:
    """The task's result from a child, or None and how the child ended."""
    with tempfile.TemporaryDirectory(prefix="ov-tuner-llm-") as folder:
        result = Path(folder) / "result.json"
        done = subprocess.run(child_command(result), input=asked_json(task, model, device, setting, load, reference,
                                                                         with_default=with_default),
                              capture_output=True, text=True, check=False)
        if done.returncode == 0 and result.is_file():
            return json.loads(result.read_text()), ""
    return None, ended(done)


def asked_json(task: str, model: LlmModel, device: str, setting: LlmSetting, load: LlmLoad,
               reference: LlmModel | None = None, cpus: list[int] | None = None, with_default: bool = False) -> str:
    """What a child is asked, as the one line of JSON it reads first; `cpus`: the cores it pins itself to and waits,
    once its first request is done, for a line saying the load may begin."""
    return json.dumps({"task": task, "model": asdict(model), "device": device, "setting": asdict(setting),
                       "load": asdict(load), "reference": asdict(reference or model), "cpus": cpus,
                       "with_default": with_default})


def child_command(result: Path) -> list[str]:
    return [sys.executable, "-m", "ov_tuner.workloads.llm.process", str(result)]


def ended(done: subprocess.CompletedProcess[str]) -> str:
    """'the trial's process ended (SIGABRT: free(): corrupted unsorted chunks)', its last line cut to SAID_CHARS."""
    code = done.returncode
    how = signal.Signals(-code).name if code < 0 else f"exit status {code}"
    said = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    last = said[-1] if said else ""
    if len(last) > SAID_CHARS:
        last = last[:SAID_CHARS - 3] + "..."
    return f"the trial's process ended ({how}{': ' + last if last else ''})"


def trial_json(trial: LlmTrial) -> dict[str, Any]:
    fields = asdict(trial)
    return {**fields, **{name: getattr(trial, name).tolist() for name in _ARRAYS}}


def trial_of(data: dict[str, Any]) -> LlmTrial:
    return LlmTrial(**{**data, "setting": LlmSetting(**data["setting"]),
                       **{name: np.array(data[name], dtype=float) for name in _ARRAYS}})


# The line an instance's child prints once its first request is done; it then waits for a line on its input.
READY = "ov-tuner: ready"
# The line a kept pipeline's child prints once a trial's result is written; it then waits for the next load.
DONE = "ov-tuner: done"


def wait_for_line(child: subprocess.Popen[str], line: str) -> bool:
    """Read the child's standard output until it says `line` (READY, DONE); False where it ended first."""
    assert child.stdout is not None
    return any(read.strip() == line for read in child.stdout)  # stops at the line: the child goes on


def _ready() -> None:
    print(READY, flush=True)
    sys.stdin.readline()


def _child(result: Path) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    asked = json.loads(sys.stdin.readline())
    if asked.get("cpus"):
        os.sched_setaffinity(0, asked["cpus"])  # before OpenVINO is loaded and reads the cores it may use
    from ov_tuner.workloads.llm.outputs import greedy_outputs
    from ov_tuner.workloads.llm.trial import run_trial

    model, setting = LlmModel.from_stored(asked["model"]), LlmSetting(**asked["setting"])
    load = LlmLoad.from_stored(asked["load"])
    if asked["task"] == KEPT:
        _kept(model, asked["device"], setting, load, result)
        return
    if asked["task"] == TRIAL:
        trial = run_trial(model, asked["device"], setting, load, _ready if asked.get("cpus") else lambda: None)
        result.write_text(json.dumps(trial_json(trial)))
        return
    checked = LlmModel.from_stored(asked["reference"]) if asked["task"] == OUTPUTS else None
    said, beside = greedy_outputs(model, asked["device"], setting, load, checked, asked["with_default"])
    result.write_text(json.dumps({**asdict(said), "default_checks": None if beside is None else asdict(beside)}))


def _kept(model: LlmModel, device: str, setting: LlmSetting, load: LlmLoad, result: Path) -> None:
    """Build the pipeline once, then run a trial for each load read from standard input (a line of JSON each) until
    it closes, writing each trial to `result` and saying DONE (a pipeline the device refuses: each trial its error)."""
    from ov_tuner.devices.native import ov_error_text
    from ov_tuner.workloads.llm.trial import Served, serve, trial_on

    served: Served | None = None
    try:
        served = serve(model, device, setting, load)
    except RuntimeError as e:
        refused = LlmTrial(setting, error=ov_error_text(e))
    for line in sys.stdin:
        asked = LlmLoad.from_stored(json.loads(line))
        trial = refused if served is None else trial_on(served, setting, asked)
        result.write_text(json.dumps(trial_json(trial)))
        print(DONE, flush=True)
    if served is not None:
        served.stop()


if __name__ == "__main__":
    _child(Path(sys.argv[1]))
