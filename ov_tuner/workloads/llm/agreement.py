"""What a setting changes in what the model says: its greedy tokens on the held-apart prompts against GenAI's
default's, as the share of each sequence said alike before the first token that differs (a sequence that differs at
its first token agrees 0, one said whole agrees 1), averaged over the prompts.

Why up to the first difference: once one token differs, the rest follow another text; counting later matches would
credit chance. Why GenAI's default as the reference: it runs the device's default inference precision with a KV cache
of the same precision, the most exact setting a user gets without asking; a setting that asks for less (u8 or u4 KV
cache) is measured for what it costs against it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ov_tuner.workloads.llm.schema import SCHEDULER_DEFAULT, LlmOutputs, LlmSetting


def agreement(said: Sequence[Sequence[int]], reference: Sequence[Sequence[int]]) -> float:
    """The mean share of each sequence said as the reference says it, up to the first token that differs."""
    shares = []
    for mine, theirs in zip(said, reference, strict=True):
        alike = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b), min(len(mine),
                                                                                                    len(theirs)))
        shares.append(alike / max(len(theirs), 1))
    return sum(shares) / len(shares) if shares else 1.0


def agreements(outputs: Sequence[LlmOutputs]) -> dict[LlmSetting, float]:
    """Each setting's agreement with GenAI's default, for every setting whose outputs were read (none where the
    default's were not)."""
    reference = next((o for o in outputs if o.setting == SCHEDULER_DEFAULT and o.error is None), None)
    if reference is None:
        return {}
    return {o.setting: agreement(o.tokens, reference.tokens) for o in outputs if o.error is None}


def lowest_cosines(outputs: Sequence[LlmOutputs]) -> dict[LlmSetting, float]:
    """Each setting's lowest cosine over the held-apart prompts between the logits choosing the first token and the
    most exact setting's (the prompt it changed most), for every setting whose logits were read."""
    return {o.setting: min(o.first_step_cosines) for o in outputs if o.first_step_cosines}
