"""Several instances of one model on one host, as a trial: N GenAI pipelines, each in a process of its own pinned to
its own share of the cores (INFERENCE_NUM_THREADS its share), the users spread evenly over them, each user's
requests going to one instance; their figures are the host's.

Why each user to one instance: in a closed loop a user has one request in flight, so a dispatcher sending each
arriving request to the least loaded of equal instances sends it back where that user's last request ended (ties
aside): the same split. An open loop has no such equivalence, so instances take a closed loop only
(ov_tuner.workloads.llm.job refuses the pair before anything runs). Why pinned: two unpinned processes each spinning
threads on every core would measure their contention, not what a deployment with a cpuset (a container each, OVMS's
own guidance) serves. Why a barrier: each instance builds its pipeline and runs its first request in seconds that
differ from another's; all begin their load together, so their counted windows are the same seconds.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from ov_tuner.workloads.llm.measured import LlmTrial
from ov_tuner.workloads.llm.process import READY, TRIAL, asked_json, child_command, ended, trial_of, wait_for_line
from ov_tuner.workloads.llm.schema import LlmLoad, LlmModel, LlmSetting


def core_shares(cpus: list[int], instances: int) -> list[list[int]]:
    """`cpus` split into `instances` runs of neighbours, as even as they divide (the first ones a core more)."""
    size, extra = divmod(len(cpus), instances)
    shares, start = [], 0
    for i in range(instances):
        end = start + size + (i < extra)
        shares.append(cpus[start:end])
        start = end
    return shares


def instances_trial(model: LlmModel, device: str, setting: LlmSetting, load: LlmLoad) -> LlmTrial:
    """`setting` as `setting.instances` pinned pipelines serving `load` together; failed where the process may use
    fewer cores than instances, the users are fewer than instances, or an instance fails (its reason)."""
    cpus = sorted(os.sched_getaffinity(0))
    count = setting.instances
    if len(cpus) < count or load.users < count:
        short = f"{len(cpus)} cores" if len(cpus) < count else f"{load.users} users"
        return LlmTrial(setting, error=f"{count} instances need a core and a user each; this run has {short}")
    shares = core_shares(cpus, count)
    with tempfile.TemporaryDirectory(prefix="ov-tuner-instances-") as folder:
        children = []
        for i, share in enumerate(shares):
            one = replace(setting, instances=1, threads=setting.threads or len(share))
            part = replace(load, users=load.users // count + (i < load.users % count), seed=load.seed + i)
            result = Path(folder) / f"instance{i}.json"
            with (Path(folder) / f"instance{i}.err").open("w") as said:  # a file: a full pipe would stall the child
                child = subprocess.Popen(child_command(result), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=said, text=True)
            assert child.stdin is not None
            child.stdin.write(asked_json(TRIAL, model, device, one, part, cpus=share) + "\n")
            child.stdin.flush()
            children.append((child, result))
        failed = _begin_together([c for c, _ in children])
        parts = []
        for child, result in children:
            out, _ = child.communicate()
            if child.returncode != 0 or not result.is_file():
                err = result.with_suffix(".err").read_text()
                failed = failed or ended(subprocess.CompletedProcess(child.args, child.returncode, out, err))
                continue
            parts.append(trial_of(json.loads(result.read_text())))
    first_error = next((p.error for p in parts if p.error), None) or failed
    if first_error:
        return LlmTrial(setting, error=f"an instance failed: {first_error}")
    return merged(setting, parts)


def _begin_together(children: list[subprocess.Popen[str]]) -> str:
    """Wait until every child says it is ready (its first request done), then let all begin; '' where all did,
    else how one that did not say so ended (the others are let go to end as they will)."""
    failed = ""
    for child in children:
        if not wait_for_line(child, READY):
            failed = failed or "an instance ended before its load began"
    for child in children:
        assert child.stdin is not None
        try:
            child.stdin.write("go\n")
            child.stdin.flush()
        except BrokenPipeError:
            pass
    return failed


def merged(setting: LlmSetting, parts: list[LlmTrial]) -> LlmTrial:
    """The instances' trials as the host's: every request's latencies, the tokens and requests of all over the mean
    of their counted seconds (each counts until its own last timed request ended: they began together, so these lie
    within a request's time of each other), the memory of all; the slowest instance's build and first request."""
    return LlmTrial(setting, ttft_ms=np.concatenate([p.ttft_ms for p in parts]),
                    tpot_ms=np.concatenate([p.tpot_ms for p in parts]),
                    output_tokens=sum(p.output_tokens for p in parts),
                    prompt_tokens=sum(p.prompt_tokens for p in parts),
                    wall_s=max(p.wall_s for p in parts), window_s=float(np.mean([p.window_s for p in parts])),
                    window_tokens=sum(p.window_tokens for p in parts),
                    window_requests=sum(p.window_requests for p in parts),
                    window_steps=sum(p.window_steps for p in parts),
                    window_prompt_tokens=sum(p.window_prompt_tokens for p in parts),
                    window_context_tokens=sum(p.window_context_tokens for p in parts),
                    kv_cache_bytes=sum(p.kv_cache_bytes for p in parts),
                    max_cache_usage=max(p.max_cache_usage for p in parts),
                    peak_rss_bytes=sum(p.peak_rss_bytes for p in parts),
                    first_request_ms=max(p.first_request_ms for p in parts), load_s=max(p.load_s for p in parts))
