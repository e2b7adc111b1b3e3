"""What a model's outputs are: their names, and which hold class scores (so that top-1 agreement means something)."""

from __future__ import annotations

import re

import openvino as ov

# Outputs whose producer is one of these, or whose name says so, hold class scores along their last axis.
CLASS_SCORE_OPS = frozenset({"Softmax", "LogSoftmax", "Sigmoid"})
CLASS_SCORE_NAME = re.compile(r"score|logit|prob|class|label", re.IGNORECASE)


def looks_like_class_scores(shape: tuple[int, ...], element_type: str, producer: str, name: str) -> bool:
    """A float output of rank 2 or more whose last axis holds classes: made by a softmax or sigmoid, or named so."""
    floating = element_type.startswith(("f", "bf"))
    return (floating and len(shape) >= 2 and shape[-1] > 1
            and (producer in CLASS_SCORE_OPS or bool(CLASS_SCORE_NAME.search(name))))


def class_score_outputs(model: ov.Model) -> dict[str, bool]:
    """Which of the model's outputs hold class scores (see looks_like_class_scores), by output name."""
    found = {}
    for i, port in enumerate(model.outputs):
        node = port.get_node()
        producer = node.input_value(0).get_node() if node.get_type_name() == "Result" else node
        shape = tuple(d.get_length() if d.is_static else 0 for d in port.get_partial_shape())
        found[output_name(port, i)] = looks_like_class_scores(shape, port.get_element_type().get_type_name(),
                                                              producer.get_type_name(), output_name(port, i))
    return found


def output_name(port: ov.Output, index: int) -> str:
    try:
        return port.get_any_name()
    except RuntimeError:
        return f"output{index}"
