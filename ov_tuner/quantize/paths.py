"""Where a model's INT8 IR lies, and an LLM's converted IR and its folder with compressed weights: naming rules
alone, so the deploy forms name the files without loading OpenVINO, NNCF or OpenCV."""

from __future__ import annotations

from pathlib import Path

from ov_tuner.model.cache import cache_dir


def int8_ir_path(model: Path) -> Path:
    """Where the deploy forms and the quantize line put a model's INT8 IR: beside it, named *_int8.xml."""
    return model.with_name(f"{model.stem}_int8.xml")


def llm_ir_folder(sha256: str) -> Path:
    """Where the IR GenAI converts an LLM's GGUF to lies: in ov-tuner's cache, keyed by the GGUF's sha256."""
    return cache_dir() / "llm" / f"{sha256[:16]}-ir"


def llm_weights_folder(sha256: str, weights: str) -> Path:
    """Where an LLM folder's copy with `weights` (int8, int4) compressed lies: in ov-tuner's cache, keyed by the
    original folder's sha256, made once."""
    return cache_dir() / "llm" / f"{sha256[:16]}-{weights}"
