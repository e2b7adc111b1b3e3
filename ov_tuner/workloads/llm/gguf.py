"""A LLaMA-shaped LLM with random weights, written as a GGUF file that OpenVINO GenAI loads directly (no download):
the demo's LLM and the tests'. Its tokenizer is a byte-level BPE (GPT-2's byte alphabet and a few merges) stored in
the file's metadata, as llama.cpp writes one.

Weight matrices are F16 (GenAI's GGUF reader refuses F32 matrices), or quantized as llama.cpp's Q4_1 files are
(Q4_1 matrices, a Q8_0 token embedding); norm vectors stay F32, as llama.cpp's do.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

# GGUF's file types for "mostly F16" and "mostly Q4_1" (llama.cpp's LLAMA_FTYPE_MOSTLY_F16 and _Q4_1).
MOSTLY_F16, MOSTLY_Q4_1 = 1, 3
# Token types: normal, and control (special) tokens.
NORMAL, CONTROL = 1, 3


@dataclass(frozen=True)
class LlamaShape:
    """The model's size: layers, width, heads (query and key/value), feed-forward width, BPE merges."""

    layers: int = 2
    width: int = 256
    heads: int = 4
    kv_heads: int = 2
    feed_forward: int = 512
    merges: int = 144
    context: int = 2048
    vocab: int = 0  # tokens in all, the merges' padded with unused ones (0: the merges' alone)
    tied: bool = False  # the output layer is the token embedding, as in SmolLM2 (no output.weight)


# SmolLM2-135M's shape, as its GGUF says (30 layers, width 576, 9 heads, 3 key/value heads, 49,152 tokens, tied).
SMOLLM2_SHAPE = LlamaShape(layers=30, width=576, heads=9, kv_heads=3, feed_forward=1536, vocab=49152, context=8192,
                           tied=True)


def _byte_alphabet() -> list[str]:
    """GPT-2's printable stand-in for each of the 256 bytes, in byte order of the stand-ins' table."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    stand_ins = list(kept)
    extra = 0
    for byte in range(256):
        if byte not in kept:
            kept.append(byte)
            stand_ins.append(256 + extra)
            extra += 1
    return [chr(c) for c in stand_ins]


# A plain chat template (ChatML's layout in this vocabulary's letters), so a chat's prompt can be made of messages.
CHAT_TEMPLATE = ("{% for message in messages %}{{ message['role'] + ': ' + message['content'] + '\n' }}{% endfor %}"
                 "{% if add_generation_prompt %}{{ 'assistant: ' }}{% endif %}")


def write_llama_gguf(path: Path, shape: LlamaShape = LlamaShape(), seed: int = 0,
                     matrix_type: type = np.float16, quantized: bool = False, tokenizer: Path | None = None) -> Path:
    """Write the model to `path`; `matrix_type` np.float32 writes the F32 matrices GenAI refuses (for its test);
    `quantized` writes them as a Q4_1 file does; `tokenizer`, a GGUF file whose tokenizer and chat template it takes
    (a real model's: its prompts then tokenize as that model's do), else its own."""
    import gguf

    writer = gguf.GGUFWriter(str(path), "llama")
    tokens = _copy_tokenizer(writer, tokenizer) if tokenizer is not None else _own_tokenizer(writer, shape)
    writer.add_context_length(shape.context)
    writer.add_embedding_length(shape.width)
    writer.add_block_count(shape.layers)
    writer.add_feed_forward_length(shape.feed_forward)
    writer.add_head_count(shape.heads)
    writer.add_head_count_kv(shape.kv_heads)
    writer.add_rope_dimension_count(shape.width // shape.heads)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_freq_base(10000.0)
    writer.add_file_type(MOSTLY_Q4_1 if quantized else MOSTLY_F16)
    _write_weights(writer, shape, tokens, seed, matrix_type, quantized)
    return path


def _own_tokenizer(writer: Any, shape: LlamaShape) -> int:
    """The made-up byte-level BPE and chat template; returns the count of tokens."""
    letters = "etaoinshrdlucmfw"
    pairs = [(a, b) for a in letters for b in letters][:shape.merges]
    merged = [*_byte_alphabet(), *(a + b for a, b in pairs)]
    unused = [f"<unused{i}>" for i in range(max(shape.vocab - len(merged) - 2, 0))]
    tokens = [*merged, *unused, "<s>", "</s>"]
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("llama-bpe")
    writer.add_token_list(tokens)
    writer.add_token_merges([f"{a} {b}" for a, b in pairs])
    writer.add_token_types([NORMAL] * (len(tokens) - 2) + [CONTROL, CONTROL])
    writer.add_bos_token_id(len(tokens) - 2)
    writer.add_eos_token_id(len(tokens) - 1)
    writer.add_chat_template(CHAT_TEMPLATE)
    return len(tokens)


def _copy_tokenizer(writer: Any, source: Path) -> int:
    """Every tokenizer key of the GGUF file `source` (its tokens, merges, special tokens and chat template), as it
    holds them; returns the count of tokens."""
    import gguf

    reader = gguf.GGUFReader(str(source))
    for field in reader.fields.values():
        if field.name.startswith("tokenizer."):
            writer.add_key_value(field.name, field.contents(), field.types[0],
                                 field.types[1] if len(field.types) > 1 else None)
    return len(reader.fields["tokenizer.ggml.tokens"].data)


def _write_weights(writer: Any, shape: LlamaShape, tokens: int, seed: int, matrix_type: type,
                   quantized: bool) -> None:
    """Random weights of `shape`, one tensor at a time (a 1.5B model's would not fit in memory at once as F32)."""
    import gguf
    from gguf.quants import quantize

    rng = np.random.default_rng(seed)

    def tensor(name: str, rows: int, columns: int | None = None) -> None:
        dims = (rows,) if columns is None else (rows, columns)
        values = rng.standard_normal(dims, dtype=np.float32) * 0.02
        if columns is None or not quantized:
            writer.add_tensor(name, values.astype(np.float32 if columns is None else matrix_type))
            return
        kind = gguf.GGMLQuantizationType.Q8_0 if name == "token_embd.weight" else gguf.GGMLQuantizationType.Q4_1
        writer.add_tensor(name, quantize(values, kind), raw_dtype=kind)

    head = shape.width // shape.heads
    tensor("token_embd.weight", tokens, shape.width)
    for i in range(shape.layers):
        tensor(f"blk.{i}.attn_norm.weight", shape.width)
        tensor(f"blk.{i}.attn_q.weight", shape.width, shape.width)
        tensor(f"blk.{i}.attn_k.weight", shape.kv_heads * head, shape.width)
        tensor(f"blk.{i}.attn_v.weight", shape.kv_heads * head, shape.width)
        tensor(f"blk.{i}.attn_output.weight", shape.width, shape.width)
        tensor(f"blk.{i}.ffn_norm.weight", shape.width)
        tensor(f"blk.{i}.ffn_gate.weight", shape.feed_forward, shape.width)
        tensor(f"blk.{i}.ffn_up.weight", shape.feed_forward, shape.width)
        tensor(f"blk.{i}.ffn_down.weight", shape.width, shape.feed_forward)
    tensor("output_norm.weight", shape.width)
    if not shape.tied:
        tensor("output.weight", tokens, shape.width)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
