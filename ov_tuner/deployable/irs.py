"""What a job compiles: the model's own IR for each precision (FP16-compressed for fp16), and for int8 the INT8 IR a
sweep recorded in its results file (made again from the record where the cache lost it), or, without one, an INT8 IR
made now as a sweep without --images makes it (NNCF on generated inputs, cached)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ov_tuner.devices.compiler import Compiler
from ov_tuner.devices.modelfile import ModelSource
from ov_tuner.devices.runtime import Runtime
from ov_tuner.quantize.ir import Starting, int8_ir
from ov_tuner.schema import Quantization

# Told that NNCF starts quantizing (seconds to minutes, once), and whether on images.
Quantizing = Starting


def job_compiler(runtime: Runtime, source: ModelSource, recorded: Quantization | None = None,
                 shapes: dict[str, list[int]] | None = None, quantizing: Quantizing | None = None,
                 made: Callable[[Quantization], None] = lambda record: None) -> Compiler:
    """The compiler of a job's configurations at the user's `shapes`; the INT8 IR is found or made once, when an int8
    configuration first needs it, and `made` is told how (a deploy form names the line that makes the same)."""
    def int8() -> Path:
        found = int8_ir(runtime, source, shapes=shapes, recorded=recorded, starting=quantizing)
        made(found.record)
        return found.path

    return Compiler(runtime, source, int8, shapes=shapes)
