"""Write a random-weight model of SmolLM2-135M-Instruct's shape and file types (30 layers, width 576, 49,152 tokens,
Q4_1 matrices, a Q8_0 token embedding tied to the output) as a GGUF file that OpenVINO GenAI loads directly: the
real model's speed where the real model cannot be fetched (the lent 16-core machine reaches no registry, and a call
carries 64 MiB at most). Its outputs mean nothing: measure speed with it, never what a setting costs in outputs.

    .venv/bin/python scripts/llm_model.py OUT.gguf
"""

from __future__ import annotations

import sys
from pathlib import Path

from ov_tuner.workloads.llm.gguf import SMOLLM2_SHAPE, write_llama_gguf

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python scripts/llm_model.py OUT.gguf")
    path = Path(sys.argv[1])
    path.parent.mkdir(parents=True, exist_ok=True)
    print(f"wrote {write_llama_gguf(path, SMOLLM2_SHAPE, quantized=True)}")
