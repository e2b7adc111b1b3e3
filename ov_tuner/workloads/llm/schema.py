"""LLM records: a text-generation model served by OpenVINO GenAI's continuous-batching scheduler, the load its users
put on it, one setting of the scheduler and the plugin, and a trial of a setting under that load.

Why these knobs: GenAI's speed hangs on the scheduler (how many prompt tokens one step takes, how many sequences run
at once, whether a step mixes prompts and generation) and on the plugin (the KV cache's precision, the threads, the
inference precision). Their effects trade time to first token against tokens a second, so the answer is the setting
that serves the load within the user's latency budget.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

import numpy as np

from ov_tuner.schema.edge import HARNESS_LIMIT, Arrival
from ov_tuner.schema.results import Environment


class LlmFormat(str, Enum):
    GGUF = "gguf"  # one llama.cpp file: weights, configuration and tokenizer
    FOLDER = "folder"  # a GenAI model folder: the model IR with its tokenizer and detokenizer IRs


@dataclass(frozen=True)
class LlmModel:
    """The model as read: its file or folder, identity and shape (what a user is shown, and what ties trials to it)."""

    path: str
    format: LlmFormat
    sha256: str
    architecture: str
    layers: int
    width: int
    vocab: int
    context: int = 0  # the most positions (prompt and output) it was trained for; 0: not said
    heads: int = 0  # attention heads (query); 0: not said
    kv_heads: int = 0  # key/value heads (fewer than heads: grouped-query attention); 0: not said
    feed_forward: int = 0  # the feed-forward layers' inner width; 0: not said

    @property
    def parameters(self) -> int:
        """The weights one token multiplies by (a llama's: attention, feed-forward and output layer; the token
        embedding is looked up, not multiplied); 0 where the file does not say the shape."""
        if not (self.heads and self.kv_heads and self.feed_forward):
            return 0
        head = self.width // self.heads
        attention = 2 * self.width * self.heads * head + 2 * self.width * self.kv_heads * head
        return self.layers * (attention + 3 * self.width * self.feed_forward) + self.vocab * self.width

    def kv_bytes_per_token(self, element_bytes: float) -> float:
        """The KV cache one token of context holds (keys and values of every layer), 0 where the shape is not said."""
        if not (self.heads and self.kv_heads):
            return 0.0
        return 2 * self.layers * self.kv_heads * (self.width // self.heads) * element_bytes

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> LlmModel:
        return cls(**{**data, "format": LlmFormat(data["format"])})


@dataclass(frozen=True)
class LlmLoad:
    """What the users ask: concurrent users (closed loop) or a request rate (open loop), each request's prompt and
    output lengths (inclusive ranges drawn uniformly, a prompts file's, or a conversations file's, whose users each
    carry a conversation's history turn by turn: ov_tuner.workloads.llm.conversations), and the seconds of arrivals
    a trial counts, after a lead-in of the same load that is not. `shared_prefix` tokens begin every generated prompt
    alike: prefix caching is then measured for what it gives; without it no two generated prompts share a token
    sequence, so a cache cannot answer from an earlier request."""

    users: int = 8  # closed loop: each user sends its next request `think_ms` after its last answer ended
    rate: float = 0.0  # open loop (where users is 0): requests a second, arriving as `arrival` says
    arrival: Arrival = Arrival.POISSON
    think_ms: float = 0.0  # in a conversation, the user's reading time before its next turn
    prompt_tokens: tuple[int, int] = (64, 128)
    output_tokens: tuple[int, int] = (32, 64)
    prompts_file: str | None = None
    conversations_file: str | None = None
    shared_prefix: int = 0
    seconds: float = 4.0
    lead_in_s: float = 1.0
    seed: int = 0

    @property
    def closed(self) -> bool:
        return self.users > 0

    @property
    def amount(self) -> float:
        """The load as a walk counts it: users (a closed loop), or requests a second."""
        return float(self.users if self.closed else self.rate)

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> LlmLoad:
        return cls(**{**data, "arrival": Arrival(data["arrival"]), "prompt_tokens": tuple(data["prompt_tokens"]),
                      "output_tokens": tuple(data["output_tokens"])})


@dataclass(frozen=True)
class LlmSetting:
    """One setting of the scheduler (SchedulerConfig's fields) and the plugin (properties). None is the default of
    whatever reads it; `max_num_batched_tokens` None is unlimited (what LLMPipeline's own scheduler uses)."""

    max_num_batched_tokens: int | None = 256
    max_num_seqs: int = 256
    dynamic_split_fuse: bool = True
    enable_prefix_caching: bool = False
    kv_cache_precision: str | None = None
    inference_precision: str | None = None
    threads: int | None = None
    weights: str | None = None  # a GenAI folder's weights compressed by NNCF: int8 or int4 (None: as given)
    dq_group_size: int | None = None  # DYNAMIC_QUANTIZATION_GROUP_SIZE (0: off)
    cache_gb: int | None = None  # SchedulerConfig.cache_size: a KV cache of this many GB made at once (None: grown)
    instances: int = 1  # pipelines, each in a process of its own pinned to its share of the cores (threads: the share)
    lookup_tokens: int = 0  # prompt lookup decoding: the tokens a step proposes from the prompt's n-grams (0: off)
    lookup_ngram: int = 0  # the longest n-gram of the prompt it matches (0: off)
    draft: str | None = None  # speculative decoding: the draft model's GenAI folder, which proposes tokens (None: off)
    draft_tokens: int = 0  # the tokens the draft proposes a step

    @property
    def assistant(self) -> tuple[int, int]:
        """What each request asks of speculative decoding: (tokens proposed a step, longest n-gram), GenAI's
        num_assistant_tokens and max_ngram_size; prompt lookup sets both, a draft model the first; (0, 0): off."""
        return self.lookup if self.lookup_tokens else (self.draft_tokens, 0)

    @property
    def lookup(self) -> tuple[int, int]:
        """Prompt lookup decoding's (proposed tokens, longest n-gram); (0, 0): off."""
        return self.lookup_tokens, self.lookup_ngram

    @property
    def speculative(self) -> bool:
        """Whether a step proposes tokens to verify (prompt lookup or a draft model), which pays while the device has
        room and costs once it is busy."""
        return self.lookup_tokens > 0 or self.draft is not None

    def without_speculation(self) -> LlmSetting:
        """This setting proposing nothing: its twin for a speculative knob's verdict by load."""
        return replace(self, lookup_tokens=0, lookup_ngram=0, draft=None, draft_tokens=0)

    def with_value(self, axis: str, value: Any) -> LlmSetting:
        """This setting with one axis of LlmSpace.axes set to `value` (prompt lookup's a pair, the draft's its folder
        and tokens). The two ways to speculate exclude each other (GenAI takes one): turning one on turns the other
        off."""
        if axis == "prompt_lookup":
            found = replace(self, lookup_tokens=value[0], lookup_ngram=value[1])
            return replace(found, draft=None, draft_tokens=0) if value[0] else found
        if axis == "draft":
            found = replace(self, draft=value[0], draft_tokens=value[1])
            return replace(found, lookup_tokens=0, lookup_ngram=0) if value[0] else found
        return replace(self, **{axis: value})

    def pipeline_properties(self) -> dict[str, str | int | bool]:
        """What the pipeline is given: the plugin's properties and, with prompt lookup, GenAI's switch for it (a
        draft model is an object GenAI makes: ov_tuner.workloads.llm.trial.open_pipeline adds it)."""
        return {**self.properties(), **({"prompt_lookup": True} if self.lookup_tokens else {})}

    def properties(self) -> dict[str, str | int]:
        """The plugin properties this setting gives the pipeline (the unset ones are left to the plugin)."""
        found: dict[str, str | int] = {}
        if self.dq_group_size is not None:
            found["DYNAMIC_QUANTIZATION_GROUP_SIZE"] = self.dq_group_size
        if self.kv_cache_precision is not None:
            found["KV_CACHE_PRECISION"] = self.kv_cache_precision
        if self.inference_precision is not None:
            found["INFERENCE_PRECISION_HINT"] = self.inference_precision
        if self.threads is not None:
            found["INFERENCE_NUM_THREADS"] = self.threads
        return found


@dataclass(frozen=True)
class LlmBudget:
    """The latency a user accepts at `percentile`: time to first token and time per output token (None: no bound)."""

    ttft_ms: float | None = None
    tpot_ms: float | None = None
    percentile: float = 90.0

    @property
    def bounded(self) -> bool:
        return self.ttft_ms is not None or self.tpot_ms is not None


@dataclass(frozen=True)
class LlmJob:
    """What an LLM results file tunes: trials of two jobs would not compare."""

    model: LlmModel
    device: str
    load: LlmLoad
    budget: LlmBudget
    genai_version: str
    min_agreement: float = 0.9  # the share of greedy tokens a setting must say as GenAI's scheduler default does


@dataclass(frozen=True)
class LlmSpace:
    """What the search tries: every combination of these values (None: the default of whatever reads it; an axis
    left empty is decided from the traffic: for_traffic)."""

    batched_tokens: tuple[int | None, ...] = (256, 1024, 4096)
    kv_cache_precisions: tuple[str | None, ...] = (None, "u8", "u4")
    threads: tuple[int | None, ...] = (None,)
    inference_precisions: tuple[str | None, ...] = (None,)
    max_seqs: tuple[int, ...] = (256,)
    weights: tuple[str | None, ...] = (None,)
    split_fuse: tuple[bool, ...] = (True,)
    prefix_caching: tuple[bool, ...] = ()
    dq_group_sizes: tuple[int | None, ...] = (None,)
    cache_gbs: tuple[int | None, ...] = (None,)
    instances: tuple[int, ...] = (1,)
    prompt_lookups: tuple[tuple[int, int], ...] = ()  # (proposed tokens, longest n-gram); (0, 0): off
    drafts: tuple[tuple[str | None, int], ...] = ((None, 0),)  # (a draft model's folder, tokens it proposes a step)

    def for_traffic(self, load: LlmLoad) -> LlmSpace:
        """The axes left to the traffic decided: prefix caching off and on where a request can begin as an earlier
        one did (a conversation's history, a prompts file's shared head, a shared prefix asked for), else off, since
        no cache answers prompts that share nothing; prompt lookup off and on (5 tokens from 3-grams, GenAI's and
        OVMS's own defaults) where the requests are text people wrote, whose answers repeat their words (a
        conversations or prompts file), else off: generated tokens never recur in an answer."""
        written = load.conversations_file is not None or load.prompts_file is not None
        repeats = written or load.shared_prefix > 0
        return replace(self, prefix_caching=self.prefix_caching or ((False, True) if repeats else (False,)),
                       prompt_lookups=self.prompt_lookups or (((0, 0), LOOKUP) if written else ((0, 0),)))

    def axes(self) -> dict[str, tuple[Any, ...]]:
        """Each setting field searched and its values, in the order an axis-by-axis search takes them (the ones
        whose effect hangs most on the traffic first), the weights first in a grid (varying slowest)."""
        return {"weights": self.weights, "enable_prefix_caching": self.prefix_caching,
                "max_num_batched_tokens": self.batched_tokens, "dynamic_split_fuse": self.split_fuse,
                "kv_cache_precision": self.kv_cache_precisions, "max_num_seqs": self.max_seqs,
                "inference_precision": self.inference_precisions, "threads": self.threads,
                "dq_group_size": self.dq_group_sizes, "cache_gb": self.cache_gbs, "instances": self.instances,
                "prompt_lookup": self.prompt_lookups or ((0, 0),), "draft": self.drafts}

    def settings(self) -> list[LlmSetting]:
        """Every combination, the weights varying slowest (a compressed folder's settings side by side); prompt
        lookup with a draft is the draft alone (LlmSetting.with_value), so once."""
        axes = self.axes()
        return list(dict.fromkeys(_set(LlmSetting(), zip(axes, values, strict=True))
                                  for values in itertools.product(*axes.values())))

    def pinned(self, setting: LlmSetting) -> LlmSetting:
        """`setting` with every axis of one value set to it: what a user pinned holds in every setting searched."""
        return _set(setting, ((name, values[0]) for name, values in self.axes().items() if len(values) == 1))


def _set(setting: LlmSetting, values: Iterable[tuple[str, Any]]) -> LlmSetting:
    for axis, value in values:
        setting = setting.with_value(axis, value)
    return setting


# Prompt lookup decoding as GenAI and OVMS apply it where a request asks for it without numbers: 5 proposed tokens,
# n-grams of up to 3.
LOOKUP = (5, 3)


# GenAI left alone, three ways a user gets it: a ContinuousBatchingPipeline with SchedulerConfig() as constructed;
# LLMPipeline(path, device), which on CPU builds the same engine with its latency-oriented scheduler (no limit on the
# tokens a step takes, prefix caching on; GenAI's utils::get_latency_oriented_scheduler_config); and OpenVINO Model
# Server given only the model, whose graph export writes enable_prefix_caching true and cache_size 0 and leaves
# max_num_batched_tokens to its proto's default of 256 (docs/llm.md cites the lines).
SCHEDULER_DEFAULT = LlmSetting()
PIPELINE_DEFAULT = LlmSetting(max_num_batched_tokens=None, enable_prefix_caching=True)
OVMS_DEFAULT = LlmSetting(enable_prefix_caching=True)


# What the model is asked to say to tell whether a setting changes it: this many held-apart prompts, this many greedy
# tokens each.
AGREEMENT_PROMPTS = 16
AGREEMENT_TOKENS = 32


@dataclass(frozen=True)
class LlmOutputs:
    """What the model said at a setting on the held-apart prompts (greedy token ids, one sequence a prompt), or why
    it could not; per prompt, against the most exact setting (ov_tuner.workloads.llm.logits, read once for each
    precision; empty where the model IR did not compile at f32 or at the setting): the cosine of the logits that chose
    its first token, and the share of the most exact setting's own continuation whose every next token this setting
    chose alike; and, where the prompts are a file's, its reply to the first (`asked`: that prompt's last message or
    text), as a user reads it."""

    setting: LlmSetting
    tokens: tuple[tuple[int, ...], ...] = ()
    error: str | None = None
    first_step_cosines: tuple[float, ...] = ()
    next_token_shares: tuple[float, ...] = ()
    asked: str = ""
    reply: str = ""


@dataclass(frozen=True)
class LlmTrial:
    """One setting under the load: every request completed before the clock stopped. Per request, its time to first
    token and time per output token after the first; in all, output tokens and requests a second over the trial's
    wall time, the KV cache allocated and its highest use, the process's peak resident memory, and the fresh
    pipeline's first request (compile and cache allocation included), timed apart and counted nowhere else.
    `pass_number` None is a search trial; a number (from 0) is a pass of the rounds side by side; `users` (a closed
    loop's) or `rate` (an open loop's) a number is a trial of the walk to the most a setting serves, at that load
    (None: the job's); both a number: a pass of a speculative setting against its twin at that load
    (ov_tuner.workloads.llm.by_load). A setting the device refuses is a trial with its `error` and no figures."""

    setting: LlmSetting
    pass_number: int | None = None
    users: int | None = None
    rate: float | None = None
    error: str | None = None
    ttft_ms: np.ndarray = field(default_factory=lambda: np.array([]))
    tpot_ms: np.ndarray = field(default_factory=lambda: np.array([]))
    output_tokens: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0  # of prompt_tokens, those the prefix cache answers (ov_tuner.workloads.llm.prefix)
    wall_s: float = 0.0  # from the first counted arrival to the last counted end
    kv_cache_bytes: int = 0
    max_cache_usage: float = 0.0
    peak_rss_bytes: int = 0
    first_request_ms: float = 0.0
    load_s: float = 0.0
    window_s: float = 0.0  # from the window's opening to the last timed end (before v17 the window; 0 before v11)
    window_tokens: int = 0  # output tokens every request produced in window_s
    window_requests: int = 0  # requests that ended in window_s
    window_steps: int = 0  # the pipeline's steps in window_s (0: measured before v16)
    window_prompt_tokens: int = 0  # prompt tokens whose first token came in window_s
    window_cached_tokens: int = 0  # of those, answered by the prefix cache (0: none, or measured before v20)
    window_context_tokens: int = 0  # over the window's steps, the tokens of context every request in flight held

    @property
    def ok(self) -> bool:
        return self.error is None and self.ttft_ms.size > 0

    @property
    def walked_at(self) -> float | None:
        """The load of a walk's trial (users, or requests a second); None for the search's and the rounds'."""
        return float(self.users) if self.users is not None else self.rate

    @property
    def searched(self) -> bool:
        return self.pass_number is None and self.walked_at is None

    @property
    def in_rounds(self) -> bool:
        """A pass of the rounds side by side, at the job's load."""
        return self.pass_number is not None and self.walked_at is None

    @property
    def walked(self) -> bool:
        """A window of the walk to the most load a setting serves."""
        return self.pass_number is None and self.walked_at is not None

    @property
    def by_load(self) -> bool:
        """A pass of a speculative setting against its twin, at one of the loads that decide it."""
        return self.pass_number is not None and self.walked_at is not None

    @property
    def hit_rate(self) -> float:
        """The share of the timed requests' prompt tokens the prefix cache answered."""
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def tokens_per_s(self) -> float:
        """What the server produced over its counted seconds; in a file written before v11, the counted requests' output
        tokens over their span, as measured then (which reads low where a request lasts as long as the window)."""
        if self.window_s > 0:
            return self.window_tokens / self.window_s
        return self.output_tokens / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def requests_per_s(self) -> float:
        if self.window_s > 0:
            return self.window_requests / self.window_s
        return self.ttft_ms.size / self.wall_s if self.wall_s > 0 else 0.0

    def ttft_at(self, percentile: float) -> float:
        return float(np.percentile(self.ttft_ms, percentile)) if self.ttft_ms.size else float("nan")

    def tpot_at(self, percentile: float) -> float:
        return float(np.percentile(self.tpot_ms, percentile)) if self.tpot_ms.size else float("nan")


@dataclass(frozen=True)
class StoredLlm:
    """Everything a results file holds of an LLM job, for its answer."""

    results: str
    environment: Environment | None  # where it was measured (None: not recorded)
    job: LlmJob
    trials: tuple[LlmTrial, ...]
    outputs: tuple[LlmOutputs, ...]
    harness: tuple[LlmTrial, ...] = ()  # the load harness's own trials, with the model made trivial
    roofline: Roofline | None = None  # the host's memory and matmul speeds and the weights' bytes (None: before v16)


@dataclass(frozen=True)
class Roofline:
    """What bounds decode on this host, measured once a job: the memory bandwidth (GB/s) its cores copy at; for each
    inference precision the search asks for (None: the plugin's default), the one the plugin ran a large matmul in
    and its GFLOP/s; the KV cache precision the plugin uses where none is asked for; and the bytes of each weights
    value's model file (None: as given), which every decode step reads whole."""

    memory_gbs: float
    matmul_gflops: tuple[tuple[str | None, str, float], ...]
    kv_precision: str
    weight_bytes: tuple[tuple[str | None, int], ...]

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> Roofline:
        return cls(data["memory_gbs"], tuple((a, r, g) for a, r, g in data["matmul_gflops"]), data["kv_precision"],
                   tuple((w, b) for w, b in data["weight_bytes"]))


@dataclass(frozen=True)
class LlmHarness:
    """ov-tuner's load harness and GenAI's scheduler with the model made trivial (a one-layer, 64-wide LLaMA), at the
    load the answer serves: the time to first token and per output token they take alone, as shares of the budget's
    limits. Near a limit (HARNESS_LIMIT), the harness, not the model on this device, may have set the users served."""

    trial: LlmTrial
    budget: LlmBudget

    @property
    def ttft_ms(self) -> float | None:
        """Time to first token at the budget's percentile (None: the trial failed)."""
        return self.trial.ttft_at(self.budget.percentile) if self.trial.ok else None

    @property
    def tpot_ms(self) -> float | None:
        return self.trial.tpot_at(self.budget.percentile) if self.trial.ok else None

    @property
    def ttft_share(self) -> float | None:
        """Of the budget's limit (None: no limit, or the trial failed)."""
        ms, limit = self.ttft_ms, self.budget.ttft_ms
        return None if ms is None or limit is None else ms / limit

    @property
    def tpot_share(self) -> float | None:
        ms, limit = self.tpot_ms, self.budget.tpot_ms
        return None if ms is None or limit is None else ms / limit

    @property
    def limited(self) -> bool:
        shares = [s for s in (self.ttft_share, self.tpot_share) if s is not None]
        return not self.trial.ok or any(s >= HARNESS_LIMIT for s in shares)
