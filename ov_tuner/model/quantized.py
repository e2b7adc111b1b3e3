"""What quantizing a model needs to know about it: whether it is already quantized (ov-tuner sweeps such a model as
given and never quantizes it twice: NNCF would stack a second set of FakeQuantize operations on the first without
a word), and whether it has attention (NNCF quantizes transformers with a model type of their own)."""

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


def has_attention(model: ov.Model) -> bool:
    """A Softmax whose result feeds a MatMul: attention, as in a transformer."""
    return any(op.get_type_name() == "Softmax"
               and any(t.get_node().get_type_name() == "MatMul" for t in op.output(0).get_target_inputs())
               for op in model.get_ops())
