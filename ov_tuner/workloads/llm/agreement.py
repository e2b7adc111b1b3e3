"""What a setting changes in what the model says. Two figures: next tokens alike along the most exact setting's own
continuation (ov_tuner.workloads.llm.logits), the one the agreement limit judges, and only for a setting that changes
a precision (the KV cache's, the inference's, the weights', dynamic quantization's); and greedy text alike, its
greedy tokens on the held-apart prompts against GenAI's scheduler default's, as the share of each sequence said alike
before the first token that differs (a sequence that differs at its first token agrees 0, one said whole agrees 1),
averaged over the prompts.

Why up to the first difference: once one token differs, the rest follow another text; counting later matches would
credit chance. Why GenAI's scheduler default as the reference: it runs the device's default inference precision
with a KV cache of the same precision, the most exact setting a user gets without asking; a setting that asks for
less (u8 or u4 KV cache) is measured for what it costs against it.

Why a setting changing no precision is never held back: a scheduler setting changes how a prompt is chunked into
steps, so the order of its sums, so where a greedy text parts at a near-tie (SmolLM2-135M on 2 cores: GenAI's two
defaults agreed 88.5% in greedy text); that is rounding, not a cost, and its greedy agreement is shown as the floor
rounding alone gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ov_tuner.workloads.llm.measured import LlmOutputs
from ov_tuner.workloads.llm.schema import SCHEDULER_DEFAULT, LlmSetting


def agreement(said: Sequence[Sequence[int]], reference: Sequence[Sequence[int]]) -> float:
    """The mean share of each sequence said as the reference says it, up to the first token that differs."""
    shares = []
    for mine, theirs in zip(said, reference, strict=True):
        alike = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b), min(len(mine),
                                                                                                    len(theirs)))
        shares.append(alike / max(len(theirs), 1))
    return sum(shares) / len(shares) if shares else 1.0


def agreements(outputs: Sequence[LlmOutputs]) -> dict[LlmSetting, float]:
    """Each setting's agreement with GenAI's scheduler default, for every setting whose outputs were read (none where
    the default's were not)."""
    reference = next((o for o in outputs if o.setting == SCHEDULER_DEFAULT and o.error is None), None)
    if reference is None:
        return {}
    return {o.setting: agreement(o.tokens, reference.tokens) for o in outputs if o.error is None}


def lowest_cosines(outputs: Sequence[LlmOutputs]) -> dict[LlmSetting, float]:
    """Each setting's lowest cosine over the held-apart prompts between the logits choosing the first token and the
    most exact setting's (the prompt it changed most), for every setting whose logits were read."""
    return {o.setting: min(o.first_step_cosines) for o in outputs if o.first_step_cosines}


# The fields of a setting that change what the model computes in, not how its work is scheduled.
PRECISION_FIELDS = ("kv_cache_precision", "inference_precision", "weights", "dq_group_size")


def precision_of(setting: LlmSetting) -> tuple[object, ...]:
    """What `setting` computes in: settings alike in it differ only in how the work is scheduled, so in rounding."""
    return tuple(getattr(setting, name) for name in PRECISION_FIELDS)


def changes_precision(setting: LlmSetting) -> bool:
    """Whether `setting` computes in another precision than GenAI's scheduler default (not only schedules otherwise)."""
    return precision_of(setting) != precision_of(SCHEDULER_DEFAULT)


def next_token_agreements(outputs: Sequence[LlmOutputs]) -> dict[LlmSetting, float]:
    """Each setting's mean share over the held-apart prompts of next tokens chosen as the most exact setting chooses
    them along its own continuation, for every setting whose logits were read."""
    return {o.setting: float(np.mean(o.next_token_shares)) for o in outputs if o.next_token_shares}


def judged_agreements(outputs: Sequence[LlmOutputs]) -> dict[LlmSetting, float]:
    """The figure the agreement limit judges, for each setting that changes a precision: its next tokens alike, or,
    in a file written before they were read, its greedy text alike."""
    greedy, next_tokens = agreements(outputs), next_token_agreements(outputs)
    return {s: next_tokens.get(s, share) for s, share in greedy.items() if changes_precision(s)}


# The fields of a setting that change how much work is done, not what is computed: prefix caching reuses the KV cache
# of a prompt's beginning, prompt lookup and a draft model propose tokens the model verifies; lossless in exact
# arithmetic.
LOSSLESS_FIELDS = ("enable_prefix_caching", "lookup_tokens", "lookup_ngram", "draft", "draft_tokens")
# How far a lossless knob's greedy text alike with its twin's may fall below the rounding floor before it is held back.
# Measured on one host (scripts/bench_lossless_margin.py: SmolLM2-135M, the demo's 16 held-apart requests, a 2-core
# Xeon): with each of six chunkings as the twin, another chunking fell at most 0.078 below the floor, and prefix caching
# and prompt lookup never fell below it; but shares against one twin spread up to 0.256 across chunkings, so a floor
# drawn at the top of that spread could put rounding alone past this margin. Not measured on other hosts or models.
LOSSLESS_MARGIN = 0.15


@dataclass(frozen=True)
class LosslessCheck:
    """A setting with a lossless knob against its twin without it: its greedy text alike with the twin's, and the
    floor rounding alone gives (the twin against the twin with the prompt chunked otherwise)."""

    alike: float
    floor: float

    @property
    def differs(self) -> bool:
        """It changes the answers beyond what rounding does: held back."""
        return self.alike < self.floor - LOSSLESS_MARGIN


def has_lossless(setting: LlmSetting) -> bool:
    return any(getattr(setting, name) != getattr(SCHEDULER_DEFAULT, name) for name in LOSSLESS_FIELDS)


def lossless_twin(setting: LlmSetting) -> LlmSetting:
    """`setting` without its lossless knobs."""
    return replace(setting, **{name: getattr(SCHEDULER_DEFAULT, name) for name in LOSSLESS_FIELDS})


def rounding_twin(setting: LlmSetting) -> LlmSetting:
    """`setting`'s lossless twin with its prompts chunked otherwise (256 batched tokens, or 1024 where it takes 256):
    a change of rounding alone, for the floor."""
    twin = lossless_twin(setting)
    return replace(twin, max_num_batched_tokens=1024 if twin.max_num_batched_tokens == 256 else 256)


def lossless_checks(outputs: Sequence[LlmOutputs]) -> dict[LlmSetting, LosslessCheck]:
    """Each setting with a lossless knob whose twin's and rounding twin's outputs were read."""
    said = {o.setting: o.tokens for o in outputs if o.error is None and o.tokens}
    return {s: LosslessCheck(agreement(tokens, said[lossless_twin(s)]),
                             agreement(said[rounding_twin(s)], said[lossless_twin(s)]))
            for s, tokens in said.items()
            if has_lossless(s) and lossless_twin(s) in said and rounding_twin(s) in said}
