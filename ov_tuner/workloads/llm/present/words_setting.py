"""An LLM job's inputs in words: a setting (a baseline by its name), the load its users put on the model, the
budget."""

from __future__ import annotations

from ov_tuner.workloads.llm.schema import (
    OVMS_DEFAULT,
    PIPELINE_DEFAULT,
    SCHEDULER_DEFAULT,
    LlmBudget,
    LlmLoad,
    LlmSetting,
)

BASELINE_NAMES = {SCHEDULER_DEFAULT: "GenAI's scheduler default", PIPELINE_DEFAULT: "LLMPipeline's default",
                  OVMS_DEFAULT: "OVMS's default"}


def setting_text(setting: LlmSetting) -> str:
    """'GenAI's scheduler default', or what differs from it: '4096 batched tokens, KV cache u8'."""
    if setting in BASELINE_NAMES:
        return BASELINE_NAMES[setting]
    base = SCHEDULER_DEFAULT
    parts = []
    if setting.max_num_batched_tokens != base.max_num_batched_tokens:
        parts.append(f"{setting.max_num_batched_tokens or 'unlimited'} batched tokens")
    if setting.max_num_seqs != base.max_num_seqs:
        parts.append(f"{setting.max_num_seqs} sequences")
    if setting.dynamic_split_fuse != base.dynamic_split_fuse:
        parts.append("split-fuse off")
    if setting.enable_prefix_caching:
        parts.append("prefix caching")
    if setting.kv_cache_precision:
        parts.append(f"KV cache {setting.kv_cache_precision}")
    if setting.inference_precision:
        parts.append(f"inference {setting.inference_precision}")
    if setting.threads:
        parts.append(f"{setting.threads} threads")
    if setting.weights:
        parts.append(f"weights {setting.weights}")
    if setting.dq_group_size is not None:
        parts.append(f"dynamic quantization group {setting.dq_group_size}")
    if setting.cache_gb:
        parts.append(f"KV cache of {setting.cache_gb} GB made at once")
    if setting.instances > 1:
        parts.append(f"{setting.instances} instances, each pinned to its share of the cores")
    if setting.lookup_tokens:
        parts.append(f"prompt lookup ({setting.lookup_tokens} tokens from {setting.lookup_ngram}-grams)")
    if setting.draft is not None:
        parts.append(f"draft model ({setting.draft_tokens} tokens a step)")
    return ", ".join(parts) or BASELINE_NAMES[SCHEDULER_DEFAULT]


def load_text(load: LlmLoad) -> str:
    """'8 users (think 0 ms), prompts 64-128 tokens, outputs 32-64 tokens'."""
    who = (f"{load.users} users (think {load.think_ms:g} ms)" if load.closed else
           f"{load.rate:g} requests/s ({load.arrival.value})")
    prompts = f"prompts from {load.prompts_file}" if load.prompts_file else \
        f"prompts {_span(load.prompt_tokens)} tokens, outputs {_span(load.output_tokens)} tokens"
    if load.conversations_file:
        who = f"{load.users} users (reading {load.think_ms:g} ms between turns)"
        prompts = f"conversations from {load.conversations_file}, each turn with its history"
    shared = f", {load.shared_prefix} tokens shared by every prompt" if load.shared_prefix else ""
    return f"{who}, {prompts}{shared}"


def _span(bounds: tuple[int, int]) -> str:
    return str(bounds[0]) if bounds[0] == bounds[1] else f"{bounds[0]}-{bounds[1]}"


def budget_text(budget: LlmBudget) -> str:
    """'p90 TTFT 200 ms, TPOT 50 ms', or 'none'."""
    bounds = [f"{name} {value:g} ms" for name, value in (("TTFT", budget.ttft_ms), ("TPOT", budget.tpot_ms))
              if value is not None]
    return f"p{budget.percentile:g} {', '.join(bounds)}" if bounds else "none (the most output tokens a second)"
