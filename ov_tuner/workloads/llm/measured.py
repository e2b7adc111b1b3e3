"""What an LLM job measured: a trial of a setting under the load, what the model said at a setting, the host's
roofline, the load harness's own trial, and all of a results file's together (StoredLlm), for its answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ov_tuner.schema.edge import HARNESS_LIMIT
from ov_tuner.schema.results import Environment
from ov_tuner.workloads.llm.schema import LlmBudget, LlmJob, LlmSetting


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


def pooled(trials: Sequence[LlmTrial]) -> tuple[np.ndarray, np.ndarray]:
    """Every request's TTFT and TPOT over `trials` (ok ones), pooled (ms)."""
    return np.concatenate([t.ttft_ms for t in trials]), np.concatenate([t.tpot_ms for t in trials])


def at_budget(ttft: np.ndarray, tpot: np.ndarray, budget: LlmBudget) -> tuple[float, float]:
    """TTFT and TPOT at the budget's percentile (ms; TPOT 0 where no request had a second token)."""
    return (float(np.percentile(ttft, budget.percentile)),
            float(np.percentile(tpot, budget.percentile)) if tpot.size else 0.0)
