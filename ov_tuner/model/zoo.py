"""A small zoo of reference architectures, with what each costs: parameters and FLOPs per inference.

Built with the opset API and seeded weights (ov_tuner.model.architectures); nothing is downloaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import openvino as ov

from ov_tuner.errors import BadInputError
from ov_tuner.model.architectures import ARCHITECTURES

DESCRIPTIONS = {
    "mobilenet_v2": "MobileNet-v2 image classifier, 224x224 (the default model)",
    "resnet50": "ResNet-50 v1.5 image classifier, 224x224",
    "ssdlite_mobilenet_v2": "SSDLite detector on MobileNet-v2, 300x300, 1917 boxes x 91 classes",
    "bert_encoder": "BERT-mini-like encoder, int64 input_ids/attention_mask/token_type_ids, sequence 128",
    "tiny_conv": "one 3x3 convolution on 8x16x16: a model whose run time is mostly overhead",
}


@dataclass(frozen=True)
class ModelStats:
    """Float weights, and floating-point operations of one batch-1 inference (a multiply-add is 2)."""

    parameters: int
    flops: int


def model_stats(model: ov.Model) -> ModelStats:
    """Count float weights and the FLOPs of convolutions and matrix products, on a batch-1 copy."""
    model = model.clone()
    model.reshape({port: [1 if i == 0 else d for i, d in enumerate(port.get_partial_shape())]
                   for port in model.inputs})
    parameters = flops = 0
    for op in model.get_ordered_ops():
        kind = op.get_type_name()
        if kind == "Constant" and op.get_output_element_type(0).is_real():
            parameters += int(np.prod(list(op.get_output_shape(0)), dtype=np.int64))
        elif kind in ("Convolution", "GroupConvolution"):
            out = list(op.get_output_shape(0))
            kernel = list(op.input(1).get_shape())  # [Co, Ci, kh, kw] or [G, Co/G, Ci/G, kh, kw]
            per_output = int(np.prod(kernel[-3:])) if kind == "GroupConvolution" else int(np.prod(kernel[1:]))
            flops += 2 * int(np.prod(out)) * per_output
        elif kind == "MatMul":
            a = list(op.input(0).get_shape())
            inner = a[-2] if op.get_attributes().get("transpose_a") else a[-1]
            flops += 2 * int(np.prod(list(op.get_output_shape(0)))) * inner
    return ModelStats(parameters, flops)


@dataclass(frozen=True)
class ZooEntry:
    """A zoo model as `zoo list` shows it: its inputs as (name, element type, shape as OpenVINO prints it, '?' for a
    dynamic dimension) and what it costs."""

    name: str
    description: str
    inputs: tuple[tuple[str, str, str], ...]
    stats: ModelStats


def zoo_entries() -> list[ZooEntry]:
    """Every zoo model, built to read its inputs and count its cost."""
    entries = []
    for name in ARCHITECTURES:
        model = zoo_model(name)
        inputs = tuple((p.get_any_name(), p.get_element_type().get_type_name(), str(p.get_partial_shape()))
                       for p in model.inputs)
        entries.append(ZooEntry(name, DESCRIPTIONS[name], inputs, model_stats(model)))
    return entries


def zoo_model(name: str) -> ov.Model:
    if name not in ARCHITECTURES:
        raise BadInputError(f"no zoo model '{name}'; choose from {', '.join(ARCHITECTURES)} (`ov-tuner zoo list`)")
    return ARCHITECTURES[name]()


def build_zoo_model(name: str, out_dir: Path) -> tuple[Path, ModelStats]:
    """Write zoo model `name` as an FP32 OpenVINO IR into `out_dir`; return its path and cost."""
    model = zoo_model(name)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.xml"
    ov.save_model(model, path, compress_to_fp16=False)
    return path, model_stats(model)
