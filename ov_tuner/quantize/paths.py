"""Where a model's INT8 IR lies: a naming rule alone, so the deploy forms name the file without loading OpenVINO, NNCF
or OpenCV."""

from __future__ import annotations

from pathlib import Path


def int8_ir_path(model: Path) -> Path:
    """Where the deploy forms and the quantize line put a model's INT8 IR: beside it, named *_int8.xml."""
    return model.with_name(f"{model.stem}_int8.xml")
