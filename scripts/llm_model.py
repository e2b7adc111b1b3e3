"""Write the demo's LLM: a LLaMA-shaped model with random weights (4 layers, width 512, F16 matrices) as a GGUF
file that OpenVINO GenAI loads directly. Nothing is downloaded.

    .venv/bin/python scripts/llm_model.py results/llama_demo.gguf
"""

from __future__ import annotations

import sys
from pathlib import Path

from ov_tuner.workloads.llm.gguf import LlamaShape, write_llama_gguf

DEMO_SHAPE = LlamaShape(layers=4, width=512, heads=8, kv_heads=4, feed_forward=1536)

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python scripts/llm_model.py OUT.gguf")
    path = Path(sys.argv[1])
    path.parent.mkdir(parents=True, exist_ok=True)
    print(f"wrote {write_llama_gguf(path, DEMO_SHAPE)}")
