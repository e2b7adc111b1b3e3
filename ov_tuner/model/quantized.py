"""Whether a model is already quantized: ov-tuner sweeps such a model as given and never quantizes it twice (NNCF
would stack a second set of FakeQuantize operations on the first without a word)."""

from __future__ import annotations

import openvino as ov

# Operations that quantize activations (FakeConvert: FP8), and weight element types of compressed weights.
QUANTIZING_OPS = frozenset({"FakeQuantize", "FakeConvert"})
LOW_BIT_WEIGHTS = frozenset({"u8", "i8", "u4", "i4", "nf4"})


def quantized_ops(model: ov.Model) -> int:
    """How many operations quantize: FakeQuantize or FakeConvert, and 8-bit or 4-bit weight constants that a
    Convert turns back into float (int64 and int32 constants are shapes and axes, not weights)."""
    count = 0
    for op in model.get_ops():
        kind = op.get_type_name()
        if kind in QUANTIZING_OPS:
            count += 1
        elif kind == "Constant" and op.get_output_element_type(0).get_type_name() in LOW_BIT_WEIGHTS:
            consumers = op.output(0).get_target_inputs()
            count += any(c.get_node().get_type_name() == "Convert" for c in consumers)
    return count
