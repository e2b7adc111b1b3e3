"""Where an LLM's converted IR and its folder with compressed weights lie: naming rules alone, so the deploy forms
name the folders without loading OpenVINO, GenAI or NNCF."""

from __future__ import annotations

from pathlib import Path

from ov_tuner.model.cache import cache_dir


def llm_ir_folder(sha256: str) -> Path:
    """Where the IR GenAI converts an LLM's GGUF to lies: in ov-tuner's cache, keyed by the GGUF's sha256."""
    return cache_dir() / "llm" / f"{sha256[:16]}-ir"


def llm_weights_folder(sha256: str, weights: str) -> Path:
    """Where an LLM folder's copy with `weights` (int8, int4) compressed lies: in ov-tuner's cache, keyed by the
    original folder's sha256, made once."""
    return cache_dir() / "llm" / f"{sha256[:16]}-{weights}"
