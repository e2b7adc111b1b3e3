"""One LLM trial: a GenAI continuous-batching pipeline at one setting (fresh, or kept from the setting's last trial:
ov_tuner.workloads.llm.kept), driven step by step under the users' load, every counted request timed from its arrival
to its first token and to its last.

Why step by step: a server's scheduler (GenAI's own, OVMS's) adds requests as they arrive and runs one step of the
batch at a time; this loop is that server, so time to first token includes the wait for a step, as a user's does.
A fresh pipeline's first request (model build, compile, cache allocation) is timed alone and counted nowhere else;
then, in each trial, `lead_in_s` of the same load (in a closed loop, at least until the first request of every user
that sent one at the start has ended), not counted; then a window of `seconds`
(ov_tuner.workloads.llm.arrivals.CountedWindow): the requests that arrive in it are timed. The load goes on until
every timed request has ended, so the last of them do not run on an emptier server than the first; what the server
produced from the window's opening until then is its throughput. What is left in flight, none of it timed, and the
users left reading their last answer are paused: a kept pipeline's next trial goes on from them
(ov_tuner.workloads.llm.stepping.run_load says why).
Output lengths are held with min_new_tokens and ignore_eos.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ov_tuner.devices.native import ov_error_text
from ov_tuner.workloads.llm.conversations import ConversationRequests, read_conversations
from ov_tuner.workloads.llm.measured import LlmTrial
from ov_tuner.workloads.llm.prefix import PrefixBlocks, block_tokens
from ov_tuner.workloads.llm.prompts import (
    LlmRequest,
    Requests,
    RequestStream,
    chat_encoder,
    file_requests,
    generated_requests,
    line_encoder,
    read_prompts,
)
from ov_tuner.workloads.llm.schema import LlmLoad, LlmModel, LlmSetting
from ov_tuner.workloads.llm.stepping import (
    Paused,
    add_request,
    run_load,
    stop_load,
)

# SchedulerConfig's max_num_batched_tokens that means no limit (size_t's largest).
UNLIMITED_TOKENS = 2**64 - 1
# The held-apart prompts are drawn with the trials' seed plus this, so none is a prompt a trial sent.
HELD_APART_SEED = 1000


def scheduler_config(setting: LlmSetting) -> object:
    """GenAI's SchedulerConfig for `setting`: its defaults, with the setting's fields written over them."""
    import openvino_genai

    config = openvino_genai.SchedulerConfig()
    config.max_num_batched_tokens = setting.max_num_batched_tokens or UNLIMITED_TOKENS
    config.max_num_seqs = setting.max_num_seqs
    config.dynamic_split_fuse = setting.dynamic_split_fuse
    config.enable_prefix_caching = setting.enable_prefix_caching
    config.cache_size = setting.cache_gb or 0
    return config


def open_pipeline(model: str, setting: LlmSetting, device: str) -> tuple[object, float]:
    """A continuous-batching pipeline at `setting` and the seconds it took to build (RuntimeError where the device
    refuses the setting or the model)."""
    import openvino_genai

    started = time.perf_counter()
    properties: dict[str, object] = {**setting.pipeline_properties()}
    if setting.draft is not None:  # on the same device, its scheduler GenAI's own choice from the main model's
        properties["draft_model"] = openvino_genai.draft_model(setting.draft, device)
    pipe = openvino_genai.ContinuousBatchingPipeline(model, scheduler_config(setting), device, properties, {})
    return pipe, time.perf_counter() - started






@dataclass
class Served:
    """A pipeline built for trials: the stream of requests it sends (one across all its trials, so that a kept
    pipeline's prefix cache never meets a request it has seen), the seconds its build took, its first request's
    milliseconds (alone, counted nowhere else), the users' requests its last trial left in flight and those it
    left reading, paused until the next resumes them, and (with prefix caching) the blocks its cache holds."""

    pipe: object
    requests: Requests
    load_s: float
    first_request_ms: float
    paused: Paused = field(default_factory=Paused)
    prefix: PrefixBlocks | None = None
    assistant: tuple[int, int] = (0, 0)  # each request's speculative decoding (LlmSetting.assistant)

    def stop(self) -> None:
        """End the requests its last trial left in flight: a trial after it starts its users afresh, and a pipeline
        closed so leaks no KV blocks (GenAI reports those on standard error)."""
        stop_load(self.pipe, self.paused)
        self.paused = Paused()


def serve(model: LlmModel, device: str, setting: LlmSetting, load: LlmLoad) -> Served:
    """A fresh pipeline at `setting` with its first request done (RuntimeError where the device refuses it)."""
    pipe, load_s = open_pipeline(model.path, setting, device)
    requests = requests_for(pipe, model, load)
    prefix = PrefixBlocks(block_tokens(device)) if setting.enable_prefix_caching else None
    first = _first_request(pipe, requests.next(None), prefix, setting.assistant)
    return Served(pipe, requests, load_s, first, prefix=prefix, assistant=setting.assistant)


def run_trial(model: LlmModel, device: str, setting: LlmSetting, load: LlmLoad,
              ready: Callable[[], None] = lambda: None) -> LlmTrial:
    """`setting` under `load`: a fresh pipeline, its first request alone, the lead-in, the counted window. A setting
    the device refuses is a trial with its error. Run it in a process of its own (ov_tuner.workloads.llm.process): a
    setting can end the process (GenAI 2026.4.1's u4 KV cache did), which no trial can catch. `ready` is called once
    the first request is done and returns when the load may begin (several instances begin theirs together)."""
    try:
        served = serve(model, device, setting, load)
    except RuntimeError as e:
        return LlmTrial(setting, error=ov_error_text(e))
    ready()
    trial = trial_on(served, setting, load)
    if trial.ok:
        served.stop()
    return trial


def trial_on(served: Served, setting: LlmSetting, load: LlmLoad) -> LlmTrial:
    """`load` on a pipeline already built (and warm: its first request, perhaps trials, done): the lead-in, the
    counted window; the pipeline's build and first request as its own. The users' requests its last trial left in
    flight, and its users reading, go on (run_load says why), and what this trial leaves is paused for the next."""
    _reset_peak_memory()
    try:
        tally, usage, served.paused = run_load(served.pipe, load, served.requests, served.paused, served.prefix,
                                               served.assistant)
    except RuntimeError as e:
        return LlmTrial(setting, error=ov_error_text(e))
    metrics = served.pipe.get_metrics()  # type: ignore[attr-defined]
    return LlmTrial(setting, ttft_ms=np.array(tally.ttft_ms), tpot_ms=np.array(tally.tpot_ms),
                    output_tokens=tally.output_tokens, prompt_tokens=tally.prompt_tokens,
                    cached_tokens=tally.cached_tokens, window_cached_tokens=tally.window_cached_tokens,
                    wall_s=max(tally.last_end - tally.first_arrival, 0.0), window_s=tally.counted_s,
                    window_tokens=tally.window_tokens, window_requests=tally.window_requests,
                    window_steps=tally.window_steps, window_prompt_tokens=tally.window_prompt_tokens,
                    window_context_tokens=tally.window_context_tokens,
                    kv_cache_bytes=int(metrics.kv_cache_size_in_bytes), max_cache_usage=usage,
                    peak_rss_bytes=_peak_memory(), first_request_ms=served.first_request_ms, load_s=served.load_s)


def requests_for(pipe: object, model: LlmModel, load: LlmLoad) -> Requests:
    """The load's requests, the same in every trial: its conversations or its prompts file through the model's
    tokenizer, or generated from the vocabulary less its special tokens."""
    tokenizer = pipe.get_tokenizer()  # type: ignore[attr-defined]
    special = {tokenizer.get_bos_token_id(), tokenizer.get_eos_token_id(), tokenizer.get_pad_token_id()}
    vocabulary = np.array([i for i in range(model.vocab or len(tokenizer.get_vocab())) if i not in special])
    if load.conversations_file is not None:
        return ConversationRequests(read_conversations(Path(load.conversations_file)), chat_encoder(tokenizer),
                                    reply_decoder(tokenizer), vocabulary, load.seed)
    if load.prompts_file is None:
        return RequestStream(generated_requests(vocabulary, load.prompt_tokens, load.output_tokens,
                                                load.shared_prefix, load.seed))
    return RequestStream(file_requests(read_prompts(Path(load.prompts_file)), line_encoder(tokenizer), vocabulary,
                                       load.seed))


def reply_decoder(tokenizer: object) -> Callable[[Sequence[int]], str]:
    """A reply's token ids to the text its user reads: up to the end of the answer (the output length is held past
    it), special tokens left out, as a server returns it."""
    end = tokenizer.get_eos_token_id()  # type: ignore[attr-defined]

    def decode(ids: Sequence[int]) -> str:
        said = list(ids)
        said = said[:said.index(end)] if end in said else said
        return str(tokenizer.decode(said, skip_special_tokens=True)).strip()  # type: ignore[attr-defined]

    return decode






def _first_request(pipe: object, request: LlmRequest, prefix: PrefixBlocks | None,
                   assistant: tuple[int, int]) -> float:
    started = time.perf_counter()
    handle = add_request(pipe, 0, request, assistant)  # held: GenAI drops a request whose handle is released
    while pipe.has_non_finished_requests():  # type: ignore[attr-defined]
        pipe.step()  # type: ignore[attr-defined]
    del handle
    if prefix is not None:
        prefix.hold(request.prompt)
    return (time.perf_counter() - started) * 1000












def _reset_peak_memory() -> None:
    """Start the process's peak resident memory afresh (Linux: clear_refs 5), so a trial reads its own peak."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _peak_memory() -> int:
    """The process's peak resident memory since the last reset, in bytes (0 where the system does not say)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0
