"""What a setting changes in the model's numbers, against the most exact setting, told without a greedy cascade: per
held-apart prompt, the cosine of the logits that choose its first output token, and the share of the most exact
setting's own greedy continuation whose every next token the setting chooses alike when fed that same continuation.

Why along the most exact continuation: a greedy text parts for good at its first near-tie, and every token after it
follows another text, so counting tokens alike up to the first difference measures how soon a near-tie comes, which
rounding alone (a prompt chunked otherwise) brings as surely as a precision does. Fed the same tokens, each step
asks the setting the same question, and a difference at one step changes none after it.

Why the model IR and not GenAI's pipeline: the pipeline hands out tokens and their log-probabilities, never the
logits. The IR is compiled with the setting's plugin properties (and runs the setting's weights); where the setting
leaves the KV cache precision to GenAI, it is the inference precision, as GenAI's pipeline makes it. Why the prompt
less its last token first, then one token at a time: a prompt run whole attends to its keys and values as computed,
so a KV cache precision would change nothing; run so, every logit comes from the cache at the setting's precision,
as a generated token's does. The most exact setting is f32 inference with an f32 KV cache and the weights as given.
Why figures per prompt are kept and not the logits: a vocabulary of 150,000 on 16 prompts is 10 MB a step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ov_tuner.workloads.llm.ir import model_ir
from ov_tuner.workloads.llm.schema import LlmModel, LlmSetting

EXACT: dict[str, str | int] = {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32"}


@dataclass(frozen=True)
class LogitChecks:
    """Per prompt: the first token's logits' cosine with the most exact setting's, and the share of next tokens
    chosen alike along the most exact setting's continuation."""

    first_step_cosines: tuple[float, ...]
    next_token_shares: tuple[float, ...]


def logit_checks(reference: LlmModel, device: str, checked: Sequence[tuple[LlmModel, LlmSetting]],
                 prompts: Sequence[np.ndarray], steps: int) -> list[LogitChecks]:
    """Each of `checked` (a setting on its model, its weights) against the most exact setting (on `reference`, the
    weights as given), on each prompt over `steps` tokens of the most exact setting's greedy continuation, computed
    once for all of them. RuntimeError where the device refuses any."""
    import openvino as ov

    core = ov.Core()
    exact = core.compile_model(model_ir(reference), device, EXACT).create_infer_request()
    runs = [_continue(exact, prompt, steps) for prompt in prompts]
    del exact
    found = []
    for model, setting in checked:
        ours = core.compile_model(model_ir(model), device, _as_genai_runs(device, setting)).create_infer_request()
        cosines, shares = [], []
        for prompt, (continuation, first_exact) in zip(prompts, runs, strict=True):
            chosen, first_ours = _continue(ours, prompt, steps, fed=continuation)
            cosines.append(float(first_ours @ first_exact /
                                 (np.linalg.norm(first_ours) * np.linalg.norm(first_exact))))
            shares.append(float(np.mean(chosen == continuation)))
        found.append(LogitChecks(tuple(cosines), tuple(shares)))
    return found


def _as_genai_runs(device: str, setting: LlmSetting) -> dict[str, str | int]:
    """The setting's properties, with the KV cache at the inference precision where the setting leaves it (GenAI's
    choice; the plugin's own for a stateful model differs)."""
    import openvino as ov

    properties = setting.properties()
    if setting.kv_cache_precision is None:
        properties["KV_CACHE_PRECISION"] = (setting.inference_precision or
                                            ov.Core().get_property(device, "INFERENCE_PRECISION_HINT").get_type_name())
    return properties


def _continue(request: object, prompt: np.ndarray, steps: int,
              fed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The token the request chooses at each of `steps` steps after `prompt`, and the logits that chose the first:
    fed its own choice at each step (its greedy continuation), or `fed`'s token (another's continuation)."""
    logits = _prefill(request, prompt)
    first = logits
    chosen = [int(np.argmax(logits))]
    for offset in range(steps - 1):
        token = chosen[-1] if fed is None else int(fed[offset])
        logits = _step(request, np.array([token]), prompt.size + offset)
        chosen.append(int(np.argmax(logits)))
    return np.array(chosen), first


def _prefill(request: object, prompt: np.ndarray) -> np.ndarray:
    """The prompt less its last token, then its last token alone, on a fresh state: the first output's logits."""
    request.reset_state()  # type: ignore[attr-defined]
    if prompt.size > 1:
        _step(request, prompt[:-1], 0)
    return _step(request, prompt[-1:], prompt.size - 1).astype(np.float64)


def _step(request: object, tokens: np.ndarray, start: int) -> np.ndarray:
    """Run `tokens` at positions from `start` on the request's state (feeding the inputs the IR has: an export may
    lack position_ids); the last position's logits."""
    ids = tokens.reshape(1, -1).astype(np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones((1, start + ids.shape[1]), dtype=np.int64),
             "position_ids": np.arange(start, start + ids.shape[1], dtype=np.int64)[None],
             "beam_idx": np.zeros(1, dtype=np.int32)}
    names = {name for port in request.model_inputs for name in port.names}  # type: ignore[attr-defined]
    request.infer({name: value for name, value in feeds.items() if name in names})  # type: ignore[attr-defined]
    return np.array(request.get_tensor("logits").data[0, -1], dtype=np.float64)  # type: ignore[attr-defined]
