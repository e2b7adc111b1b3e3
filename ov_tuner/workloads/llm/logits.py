"""The logits that choose a request's first output token, at a setting and at the most exact one, compared as a
cosine: what a setting changes in the model's numbers before any token differs.

Why the model IR and not GenAI's pipeline: the pipeline hands out tokens and their log-probabilities, never the
logits. The IR is compiled with the setting's plugin properties (and runs the setting's weights); where the setting
leaves the KV cache precision to GenAI, it is the inference precision, as GenAI's pipeline makes it. Why the prompt
less its last token first, then the last token alone: a prompt run whole attends to its keys and values as computed,
so a KV cache precision would change nothing; run so, the logits come from the cache at the setting's precision, as
every generated token's do. The most exact setting is f32 inference with an f32 KV cache and the weights as given.
Why a cosine per prompt is kept and not the logits: a vocabulary of 150,000 on 16 prompts is 10 MB a setting.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ov_tuner.workloads.llm.ir import model_ir
from ov_tuner.workloads.llm.schema import LlmModel, LlmSetting

EXACT: dict[str, str | int] = {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32"}


def first_step_cosines(reference: LlmModel, model: LlmModel, device: str, setting: LlmSetting,
                       prompts: Sequence[np.ndarray]) -> tuple[float, ...]:
    """Per prompt, the cosine between the first output token's logits at `setting` (on `model`, its weights) and at
    the most exact setting (on `reference`, the weights as given). RuntimeError where the device refuses either."""
    exact = _first_logits(model_ir(reference), device, EXACT, prompts)
    ours = _first_logits(model_ir(model), device, _as_genai_runs(device, setting), prompts)
    return tuple(float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))) for a, b in zip(ours, exact, strict=True))


def _as_genai_runs(device: str, setting: LlmSetting) -> dict[str, str | int]:
    """The setting's properties, with the KV cache at the inference precision where the setting leaves it (GenAI's
    choice; the plugin's own for a stateful model differs)."""
    import openvino as ov

    properties = setting.properties()
    if setting.kv_cache_precision is None:
        properties["KV_CACHE_PRECISION"] = (setting.inference_precision or
                                            ov.Core().get_property(device, "INFERENCE_PRECISION_HINT").get_type_name())
    return properties


def _first_logits(ir: Path, device: str, properties: dict[str, str | int],
                  prompts: Sequence[np.ndarray]) -> list[np.ndarray]:
    import openvino as ov

    request = ov.Core().compile_model(ir, device, properties).create_infer_request()
    found = []
    for prompt in prompts:
        request.reset_state()
        if prompt.size > 1:
            _step(request, prompt[:-1], 0)
        found.append(_step(request, prompt[-1:], prompt.size - 1).astype(np.float64))
    return found


def _step(request: object, tokens: np.ndarray, start: int) -> np.ndarray:
    """Run `tokens` at positions from `start` on the request's state (feeding the inputs the IR has: an export may
    lack position_ids); the last position's logits."""
    ids = tokens.reshape(1, -1).astype(np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones((1, start + ids.shape[1]), dtype=np.int64),
             "position_ids": np.arange(start, start + ids.shape[1], dtype=np.int64)[None],
             "beam_idx": np.zeros(1, dtype=np.int32)}
    names = {name for port in request.model_inputs for name in port.names}  # type: ignore[attr-defined]
    request.infer({name: value for name, value in feeds.items() if name in names})  # type: ignore[attr-defined]
    return np.array(request.get_tensor("logits").data[0, -1])  # type: ignore[attr-defined]
