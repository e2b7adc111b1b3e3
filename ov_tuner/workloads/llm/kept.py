"""Each setting's pipeline kept across its trials, in a child process of its own (ov_tuner.workloads.llm.process):
the rounds' passes and the walks' windows run on it one after another, as a server's pipeline serves one load after
another, instead of each building a pipeline and warming it anew.

Why: on SmolLM2 with 2 cores a walk's window of 2 s cost 10.7 s, 2.6 s of it the pipeline's build and first request,
which a served model pays once. What carries over from one trial to the next is what a server carries: the compiled
model, a KV cache grown to what the loads so far needed (each trial reports the cache as it then is), warm memory, and
the users' requests in flight and those reading an answer, which the next trial goes on from
(ov_tuner.workloads.llm.stepping.run_load): a server's load does not begin anew either. The prefix cache carries over
too, so a kept pipeline sends one stream of requests across its trials (ov_tuner.workloads.llm.trial.Served) and never
meets a request it has seen. Isolation is kept: a child that ends (a setting GenAI dies on) fails that trial with how it
ended, and the next trial of that setting builds a fresh one. Several instances are a trial of processes of their own
(ov_tuner.workloads.llm.instances), not kept.

Why at most KEPT_PIPELINES, fewer where memory is short: the rounds take turns among the contenders and the three
baselines, five in the demo, and a walk alternates the answer, the fastest and the baselines; with fewer kept than
take turns, every trial of the rounds built its pipeline anew (the least recently used is the next one due), and more
would only hold memory (the search's settings are each tried once). Before a new child starts,
the least recently used are closed until the host's available memory holds another pipeline as large as the
largest kept.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections import OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType

from ov_tuner.workloads.llm.instances import instances_trial
from ov_tuner.workloads.llm.measured import LlmTrial
from ov_tuner.workloads.llm.process import DONE, KEPT, asked_json, child_command, ended, trial_of, wait_for_line
from ov_tuner.workloads.llm.schema import LlmLoad, LlmModel, LlmSetting

# The most pipelines kept at once.
KEPT_PIPELINES = 6


@dataclass
class _Child:
    """A kept pipeline's process, where it writes each trial and what it says on its standard error, and the
    largest resident memory a trial of it read."""

    process: subprocess.Popen[str]
    folder: tempfile.TemporaryDirectory[str]
    peak_rss_bytes: int = 0

    @property
    def result(self) -> Path:
        return _result(self.folder)

    @property
    def said(self) -> Path:
        return _said(self.folder)

    def run(self, setting: LlmSetting, load: LlmLoad) -> LlmTrial:
        """One trial at `load` on the kept pipeline; failed, saying how, where the child ends before it is written."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(asdict(load)) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            pass
        if not wait_for_line(self.process, DONE):
            code = self.process.wait()
            return LlmTrial(setting, error=ended(subprocess.CompletedProcess(self.process.args, code, "",
                                                                             self.said.read_text())))
        trial = trial_of(json.loads(self.result.read_text()))
        self.peak_rss_bytes = max(self.peak_rss_bytes, trial.peak_rss_bytes)
        return trial

    def close(self) -> None:
        """End the child (its input closed, it returns) and remove its folder."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.folder.cleanup()


class KeptPipelines:
    """The pipelines kept for a run's trials, one child process per model, device and setting; a context manager
    that ends them all."""

    def __init__(self, most: int = KEPT_PIPELINES) -> None:
        self._most = most
        self._children: OrderedDict[tuple[str, str, LlmSetting], _Child] = OrderedDict()

    def trial(self, model: LlmModel, device: str, setting: LlmSetting, load: LlmLoad) -> LlmTrial:
        """`setting` under `load` on its kept pipeline (built now where there is none); a failed trial ends it.
        Several instances: a trial of their own processes."""
        if setting.instances > 1:
            return instances_trial(model, device, setting, load)
        key = (model.path, device, setting)
        child = self._children.pop(key, None) or self._start(model, device, setting, load)
        trial = child.run(setting, load)
        if trial.error:
            child.close()
        else:
            self._children[key] = child  # the most recently used last
        return trial

    def _start(self, model: LlmModel, device: str, setting: LlmSetting, load: LlmLoad) -> _Child:
        while self._children and (len(self._children) >= self._most or not _room_for(self._largest())):
            self._children.popitem(last=False)[1].close()
        folder = tempfile.TemporaryDirectory(prefix="ov-tuner-kept-")
        with _said(folder).open("w") as said:  # a file: a full pipe would stall the child
            process = subprocess.Popen(child_command(_result(folder)), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=said, text=True)
        assert process.stdin is not None
        process.stdin.write(asked_json(KEPT, model, device, setting, load) + "\n")
        process.stdin.flush()
        return _Child(process, folder)

    def _largest(self) -> int:
        return max(c.peak_rss_bytes for c in self._children.values())

    def close(self) -> None:
        while self._children:
            self._children.popitem(last=False)[1].close()

    def __enter__(self) -> KeptPipelines:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


def _result(folder: tempfile.TemporaryDirectory[str]) -> Path:
    return Path(folder.name) / "result.json"


def _said(folder: tempfile.TemporaryDirectory[str]) -> Path:
    return Path(folder.name) / "said.err"


def _room_for(bytes_needed: int) -> bool:
    """Whether the host's available memory (Linux: MemAvailable) holds `bytes_needed` more; True where it does not
    say."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024 > bytes_needed
    except OSError:
        pass
    return True
