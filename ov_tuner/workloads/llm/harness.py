"""The LLM load harness's own share of the budget: the same trial (ov_tuner.workloads.llm.trial: the step loop, the
users' arrivals, every flight read each step) at the load the answer serves, with the model made trivial, a one-layer
64-wide LLaMA written here. What time to first token and per output token remain are ov-tuner's harness and GenAI's
scheduler alone, so the answer can say whether they, not the model on this device, set the users served.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

from ov_tuner.workloads.llm.fresh import trial_in_process
from ov_tuner.workloads.llm.gguf import LlamaShape, write_llama_gguf
from ov_tuner.workloads.llm.measured import LlmTrial
from ov_tuner.workloads.llm.schema import LlmFormat, LlmLoad, LlmModel, LlmSetting

# Next to nothing to compute: one layer, 64 wide.
TRIVIAL_SHAPE = LlamaShape(layers=1, width=64, heads=2, kv_heads=1, feed_forward=128)


def harness_trial(device: str, setting: LlmSetting, load: LlmLoad) -> LlmTrial:
    """`setting` under `load` on the trivial model (its own vocabulary: prompts of the same lengths), in a process
    of its own as every trial; a draft model left out, since it is a model, not the harness (and proposes another
    vocabulary's tokens)."""
    with tempfile.TemporaryDirectory(prefix="ov-tuner-harness-") as folder:
        path = write_llama_gguf(Path(folder) / "trivial.gguf", TRIVIAL_SHAPE)
        trivial = LlmModel(str(path), LlmFormat.GGUF, sha256="", architecture="llama", layers=TRIVIAL_SHAPE.layers,
                           width=TRIVIAL_SHAPE.width, vocab=0)
        return trial_in_process(trivial, device, replace(setting, draft=None, draft_tokens=0), load)
