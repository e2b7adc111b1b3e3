"""LLM records of a job: a text-generation model served by OpenVINO GenAI's continuous-batching scheduler, the load
its users put on it, the budget, one setting of the scheduler and the plugin, and the space of them searched; what
was measured is ov_tuner.workloads.llm.measured's.

Why these knobs: GenAI's speed hangs on the scheduler (how many prompt tokens one step takes, how many sequences run
at once, whether a step mixes prompts and generation) and on the plugin (the KV cache's precision, the threads, the
inference precision). Their effects trade time to first token against tokens a second, so the answer is the setting
that serves the load within the user's latency budget.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from ov_tuner.errors import OwnInput
from ov_tuner.schema.edge import Arrival
from ov_tuner.store.tables import Writer

# Its results file, as it registers (ov_tuner.registry).
WRITER = Writer("llm", "an LLM's")

# The LLM's own inputs, as its errors name them (its command gives each its flag).
KV_PRECISION_INPUT = OwnInput("KV_PRECISION", "KV cache precisions")  # KV_CACHE_PRECISION values searched
WEIGHTS_INPUT = OwnInput("WEIGHTS", "weights")  # a model folder's weight compressions searched
DQ_GROUP_SIZE_INPUT = OwnInput("DQ_GROUP_SIZE", "dynamic quantization group sizes")  # DYNAMIC_QUANTIZATION_GROUP_SIZE
SHARED_PREFIX_INPUT = OwnInput("SHARED_PREFIX", "shared prefix")  # the tokens generated prompts begin with alike
INSTANCES_INPUT = OwnInput("INSTANCES", "instances")  # pipelines searched, each pinned to its share of the cores
DRAFT_INPUT = OwnInput("DRAFT", "draft model")  # the model proposing tokens for speculative decoding


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

    def holds(self, at: tuple[float, float]) -> bool:
        """Whether TTFT and TPOT at the budget's percentile (ms) are within its limits."""
        return (self.ttft_ms is None or at[0] <= self.ttft_ms) and (self.tpot_ms is None or at[1] <= self.tpot_ms)


@dataclass(frozen=True)
class LlmJob:
    """What an LLM results file tunes: trials of two jobs would not compare."""

    model: LlmModel
    device: str
    load: LlmLoad
    budget: LlmBudget
    genai_version: str
    min_agreement: float = 0.9  # the share of next tokens a setting of another precision must choose as f32 does


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
