"""Reference architectures built with the OpenVINO opset API, with deterministic weights.

No downloads: the graphs are the real architectures (same layers, shapes and FLOPs), the weights
come from a seeded generator. Inference speed does not depend on trained weights. Batch-norm is
folded into convolution biases, as the model optimizer does for deployed models. Inputs are
NCHW with a dynamic batch dimension.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeAlias

import numpy as np
import openvino as ov
import openvino.opset13 as ops

Node: TypeAlias = "ov.Node | ov.Output"


class _Weights:
    """Deterministic He-style weights, scaled down so activations stay finite in f16 as well."""

    def __init__(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def conv(self, out_ch: int, in_ch: int, k: int, groups: int = 1) -> np.ndarray:
        fan_in = in_ch // groups * k * k
        shape = (groups, out_ch // groups, in_ch // groups, k, k) if groups > 1 else (out_ch, in_ch, k, k)
        return (self._rng.standard_normal(shape) * np.sqrt(1.0 / fan_in)).astype(np.float32)

    def bias(self, ch: int) -> np.ndarray:
        return (self._rng.standard_normal((1, ch, 1, 1)) * 0.01).astype(np.float32)

    def dense(self, out_f: int, in_f: int) -> np.ndarray:
        return (self._rng.standard_normal((out_f, in_f)) * np.sqrt(1.0 / in_f)).astype(np.float32)


def _conv(x: Node, w: _Weights, in_ch: int, out_ch: int, k: int, stride: int = 1, groups: int = 1) -> Node:
    pad = k // 2
    strides, pads, dil = [stride, stride], [pad, pad], [1, 1]
    if groups > 1:
        y = ops.group_convolution(x, w.conv(out_ch, in_ch, k, groups), strides, pads, pads, dil)
    else:
        y = ops.convolution(x, w.conv(out_ch, in_ch, k), strides, pads, pads, dil)
    return ops.add(y, w.bias(out_ch))


def _classifier(x: Node, w: _Weights, ch: int, classes: int = 1000) -> Node:
    pooled = ops.reduce_mean(x, ops.constant(np.array([2, 3], dtype=np.int64)), keep_dims=False)
    logits = ops.matmul(pooled, w.dense(classes, ch), transpose_a=False, transpose_b=True)
    return ops.softmax(logits, 1)


def _image_input(size: int, channels: int = 3) -> ov.Node:
    param = ops.parameter([-1, channels, size, size], ov.Type.f32, name="input")
    param.get_output_tensor(0).set_names({"input"})
    param.set_layout(ov.Layout("NCHW"))
    return param


def tiny_conv(seed: int = 0) -> ov.Model:
    """One small 3x3 convolution (8 -> 8 channels on 16x16): a model whose run time is mostly overhead."""
    w = _Weights(seed)
    x = _image_input(16, channels=8)
    y = ops.relu(_conv(x, w, 8, 8, 3))
    return ov.Model([y], [x], "tiny_conv")


def mobilenet_v2(seed: int = 0, size: int = 224) -> ov.Model:
    """MobileNet-v2 (Sandler et al., 2018), width 1.0: inverted residuals with linear bottlenecks."""
    w = _Weights(seed)
    x = _image_input(size)

    def relu6(v: Node) -> Node:
        return ops.clamp(v, 0.0, 6.0)

    y = relu6(_conv(x, w, 3, 32, 3, stride=2))
    in_ch = 32
    # (expansion t, output channels c, repeats n, first stride s), from the paper's Table 2.
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = in_ch * t
            h = relu6(_conv(y, w, in_ch, hidden, 1)) if t != 1 else y
            h = relu6(_conv(h, w, hidden, hidden, 3, stride=stride, groups=hidden))
            h = _conv(h, w, hidden, c, 1)
            y = ops.add(y, h) if stride == 1 and in_ch == c else h
            in_ch = c
    y = relu6(_conv(y, w, in_ch, 1280, 1))
    return ov.Model([_classifier(y, w, 1280)], [x], "mobilenet_v2")


def resnet50(seed: int = 0, size: int = 224) -> ov.Model:
    """ResNet-50 v1.5 (He et al., 2016): bottleneck blocks [3, 4, 6, 3], stride on the 3x3 conv."""
    w = _Weights(seed)
    x = _image_input(size)
    y = ops.relu(_conv(x, w, 3, 64, 7, stride=2))
    y = ops.max_pool(y, [2, 2], [1, 1], [1, 1], [1, 1], [3, 3]).output(0)
    in_ch = 64
    for stage, (blocks, width) in enumerate([(3, 64), (4, 128), (6, 256), (3, 512)]):
        for i in range(blocks):
            stride = 2 if i == 0 and stage > 0 else 1
            out_ch = width * 4
            h = ops.relu(_conv(y, w, in_ch, width, 1))
            h = ops.relu(_conv(h, w, width, width, 3, stride=stride))
            h = _conv(h, w, width, out_ch, 1)
            shortcut = _conv(y, w, in_ch, out_ch, 1, stride=stride) if i == 0 else y
            y = ops.relu(ops.add(h, shortcut))
            in_ch = out_ch
    return ov.Model([_classifier(y, w, in_ch)], [x], "resnet50")


ARCHITECTURES: dict[str, Callable[[], ov.Model]] = {
    "tiny_conv": tiny_conv,
    "mobilenet_v2": mobilenet_v2,
    "resnet50": resnet50,
}
DEFAULT_ARCHITECTURE = "mobilenet_v2"


def build(name: str, out_dir: Path) -> Path:
    """Write architecture `name` as an FP32 OpenVINO IR in `out_dir` and return the .xml path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.xml"
    ov.save_model(ARCHITECTURES[name](), path, compress_to_fp16=False)
    return path
