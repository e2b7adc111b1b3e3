"""How far a served LLM is from what the host allows: what its steps read and compute, against the memory bandwidth
and matmul speed measured on the host (ov_tuner.devices.roofline).

Why: a decode step reads every weight once, whatever the batch, and the KV cache of every request in flight; each
token (of a prompt or an output) multiplies by every weight. So the bytes a second the server's steps read against
the bandwidth, and the FLOP a second its tokens need against the matmul's, say whether a faster setting could exist:
near one of them, the model is bound by that part of the host; far from both, time goes elsewhere (scheduling, small
operations, threads waiting on each other), which settings may win back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from ov_tuner.workloads.llm.measured import LlmTrial, Roofline
from ov_tuner.workloads.llm.schema import LlmModel, LlmSetting

# A share of a bound this high or higher: the host's memory or matmul is what the model waits on.
BOUND_SHARE = 0.5
# Bytes an element of the KV cache holds, by the precision the plugin names.
KV_ELEMENT_BYTES = {"u4": 0.5, "i4": 0.5, "u8": 1.0, "i8": 1.0, "f16": 2.0, "bf16": 2.0, "f32": 4.0}


class Bound(str, Enum):
    MEMORY = "memory"  # the steps read near the bandwidth the host copies at
    COMPUTE = "compute"  # the tokens need near the GFLOP/s the host's matmul runs at
    NEITHER = "neither"


@dataclass(frozen=True)
class DecodeBound:
    """What a setting's steps read and compute over its counted windows, against the host's roofline."""

    steps_per_s: float
    weight_bytes: int  # read every step
    kv_bytes_per_step: float  # the KV cache of the requests in flight, read every step (a mean)
    kv_precision: str
    memory_gbs: float  # what the steps read, GB/s
    host_memory_gbs: float
    tokens_per_s: float  # prompt and output tokens through the model (not the prompt tokens the prefix cache answered)
    gflops: float  # what those tokens need, 2 FLOP a weight a token
    host_gflops: float
    matmul_precision: str
    output_tokens_per_s: float

    @property
    def memory_share(self) -> float:
        return self.memory_gbs / self.host_memory_gbs

    @property
    def compute_share(self) -> float:
        return self.gflops / self.host_gflops

    @property
    def bound(self) -> Bound:
        """Judged on the shares in whole percent, as the answer shows them, so the word never contradicts them."""
        memory, compute = round(self.memory_share, 2), round(self.compute_share, 2)
        if max(memory, compute) < BOUND_SHARE:
            return Bound.NEITHER
        return Bound.MEMORY if memory >= compute else Bound.COMPUTE

    @property
    def ceiling_tokens_per_s(self) -> float:
        """Output tokens a second at this load's mix were the nearer bound reached: what no setting passes here."""
        return self.output_tokens_per_s / max(self.memory_share, self.compute_share)


def decode_bound(model: LlmModel, setting: LlmSetting, trials: Sequence[LlmTrial],
                 roofline: Roofline | None) -> DecodeBound | None:
    """`setting`'s bound over `trials` (its counted windows), None where the roofline was not measured, the model's
    shape is not known, the trials counted no steps (a file from before v16) or the setting ran a precision whose
    matmul was not timed."""
    steps = sum(t.window_steps for t in trials)
    seconds = sum(t.window_s for t in trials)
    if roofline is None or not model.parameters or not steps or seconds <= 0:
        return None
    matmul = next(((ran, gflops) for asked, ran, gflops in roofline.matmul_gflops
                   if asked == setting.inference_precision), None)
    kv = setting.kv_cache_precision or roofline.kv_precision
    weights = dict(roofline.weight_bytes).get(setting.weights)
    if matmul is None or kv not in KV_ELEMENT_BYTES or weights is None:
        return None
    kv_per_step = sum(t.window_context_tokens for t in trials) / steps * model.kv_bytes_per_token(KV_ELEMENT_BYTES[kv])
    output = sum(t.window_tokens for t in trials)
    tokens = output + sum(t.window_prompt_tokens - t.window_cached_tokens for t in trials)
    return DecodeBound(steps_per_s=steps / seconds, weight_bytes=weights, kv_bytes_per_step=kv_per_step,
                       kv_precision=kv, memory_gbs=steps * (weights + kv_per_step) / seconds / 1e9,
                       host_memory_gbs=roofline.memory_gbs, tokens_per_s=tokens / seconds,
                       gflops=2 * model.parameters * tokens / seconds / 1e9, host_gflops=matmul[1],
                       matmul_precision=matmul[0], output_tokens_per_s=output / seconds)
