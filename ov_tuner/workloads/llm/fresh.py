"""A trial on a fresh pipeline, isolated as every LLM trial is: in a child process of its own
(ov_tuner.workloads.llm.process), or, with several instances, in one each (ov_tuner.workloads.llm.instances)."""

from __future__ import annotations

from ov_tuner.workloads.llm.instances import instances_trial
from ov_tuner.workloads.llm.measured import LlmTrial
from ov_tuner.workloads.llm.process import TRIAL, in_process, trial_of
from ov_tuner.workloads.llm.schema import LlmLoad, LlmModel, LlmSetting


def trial_in_process(model: LlmModel, device: str, setting: LlmSetting, load: LlmLoad) -> LlmTrial:
    """Run the trial in a child process (several instances: in one each, ov_tuner.workloads.llm.instances); one that
    ends without its trial is a failed trial saying how it ended."""
    if setting.instances > 1:
        return instances_trial(model, device, setting, load)
    found, ended = in_process(TRIAL, model, device, setting, load)
    return LlmTrial(setting, error=ended) if found is None else trial_of(found)
