"""The metric accuracy-aware quantization keeps: each held-apart input's agreement with the FP32 model's outputs.

Per input, the least over the outputs of: top-1 agreement (1 or 0) where an output holds class scores, the
top-box agreement where it holds a detector's scores, the cosine similarity elsewhere, the share of equal values
for integer outputs. Agreement with FP32 needs no labels, so it works on any model and any images; it is the
figure the sweep reports beside int8's speed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import openvino as ov

from ov_tuner.analyse.accuracy import compare_output
from ov_tuner.model.outputs import output_name
from ov_tuner.quantize.nncf_backend import Validation


def outputs_of(compiled: ov.CompiledModel, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """One inference's outputs by name."""
    result = compiled(inputs)
    return {output_name(port, i): np.array(result[i]) for i, port in enumerate(compiled.outputs)}


def item_agreement(reference: Mapping[str, np.ndarray], actual: Mapping[str, np.ndarray],
                   class_scores: Mapping[str, bool]) -> float:
    """How far one input's outputs agree with the reference's, from 0 to 1 (see the module's docstring)."""
    values = []
    for name, ref in reference.items():
        o = compare_output(name, ref[None], actual[name][None], class_scores.get(name, False))
        figure = (o.equal_share if o.exact_kind else o.top1 if o.top1 is not None
                  else o.top_boxes if o.top_boxes is not None else o.mask_iou)
        values.append(figure if figure is not None else o.cosine or 0.0)
    return min(values)


def agreement_with(reference: Sequence[Mapping[str, np.ndarray]], class_scores: Mapping[str, bool]) -> Validation:
    """NNCF's validation function: the mean agreement of a compiled model with `reference` over (index, inputs)
    items, and each item's."""
    def validate(compiled: ov.CompiledModel, items: Iterable[Any]) -> tuple[float, list[float]]:
        values = [item_agreement(reference[index], outputs_of(compiled, inputs), class_scores)
                  for index, inputs in items]
        return float(np.mean(values)), values
    return validate
