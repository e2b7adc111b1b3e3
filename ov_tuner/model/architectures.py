"""Reference architectures built with the OpenVINO opset API, with deterministic weights.

No downloads: the graphs are the real architectures (same layers, shapes and FLOPs), the weights
come from a seeded generator. Inference speed does not depend on trained weights. Batch-norm is
folded into convolution biases, as the model optimizer does for deployed models. Inputs are
NCHW with a dynamic batch dimension.
"""

from __future__ import annotations

from collections.abc import Callable
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


def _relu6(v: Node) -> Node:
    return ops.clamp(v, 0.0, 6.0)


def _mobilenet_v2_features(x: Node, w: _Weights) -> tuple[Node, Node]:
    """MobileNet-v2's body: the last stride-16 feature map (96 channels) and the final 1280-channel one."""
    y = _relu6(_conv(x, w, 3, 32, 3, stride=2))
    in_ch = 32
    stride16: Node = y
    # (expansion t, output channels c, repeats n, first stride s), from the paper's Table 2.
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = in_ch * t
            h = _relu6(_conv(y, w, in_ch, hidden, 1)) if t != 1 else y
            h = _relu6(_conv(h, w, hidden, hidden, 3, stride=stride, groups=hidden))
            h = _conv(h, w, hidden, c, 1)
            y = ops.add(y, h) if stride == 1 and in_ch == c else h
            in_ch = c
        if c == 96:
            stride16 = y
    return stride16, _relu6(_conv(y, w, in_ch, 1280, 1))


def mobilenet_v2(seed: int = 0, size: int = 224) -> ov.Model:
    """MobileNet-v2 (Sandler et al., 2018), width 1.0: inverted residuals with linear bottlenecks."""
    w = _Weights(seed)
    x = _image_input(size)
    _, features = _mobilenet_v2_features(x, w)
    return ov.Model([_classifier(features, w, 1280)], [x], "mobilenet_v2")


def ssdlite_mobilenet_v2(seed: int = 0, size: int = 300, classes: int = 91) -> ov.Model:
    """SSDLite on a MobileNet-v2 backbone (Sandler et al., 2018, sec. 6.2), 300x300, the mobilenet-ssd class.

    Six feature maps (19, 10, 5, 3, 2, 1) with 3 or 6 anchors each give 1917 boxes; every head and extra
    layer is a depthwise-separable convolution. Outputs raw box offsets and class scores (no NMS).
    """
    w = _Weights(seed)
    x = _image_input(size)
    stride16, top = _mobilenet_v2_features(x, w)
    maps: list[tuple[Node, int]] = [(stride16, 96), (top, 1280)]
    y, in_ch = top, 1280
    for out_ch in (512, 256, 256, 128):  # extra layers: 1x1 reduce, 3x3 depthwise stride 2, 1x1 expand
        h = _relu6(_conv(y, w, in_ch, out_ch // 2, 1))
        h = _relu6(_conv(h, w, out_ch // 2, out_ch // 2, 3, stride=2, groups=out_ch // 2))
        y, in_ch = _relu6(_conv(h, w, out_ch // 2, out_ch, 1)), out_ch
        maps.append((y, out_ch))
    boxes: list[Node] = []
    scores: list[Node] = []
    for i, (feature, ch) in enumerate(maps):
        anchors = 3 if i == 0 else 6
        for outputs, per_anchor in ((boxes, 4), (scores, classes)):
            h = _relu6(_conv(feature, w, ch, ch, 3, groups=ch))
            h = _conv(h, w, ch, anchors * per_anchor, 1)
            nhwc = ops.transpose(h, ops.constant(np.array([0, 2, 3, 1], dtype=np.int64)))
            outputs.append(ops.reshape(nhwc, ops.constant(np.array([0, -1, per_anchor], dtype=np.int64)),
                                       special_zero=True))
    box_out = ops.concat(boxes, 1)
    score_out = ops.softmax(ops.concat(scores, 1), 2)
    box_out.get_output_tensor(0).set_names({"boxes"})
    score_out.get_output_tensor(0).set_names({"scores"})
    return ov.Model([box_out, score_out], [x], "ssdlite_mobilenet_v2")


def bert_encoder(seed: int = 0, sequence: int = 128, hidden: int = 256, layers: int = 4, heads: int = 4,
                 vocab: int = 30522) -> ov.Model:
    """A small BERT-like encoder (BERT-mini shape: 4 layers, hidden 256, 4 heads, FFN 1024).

    Inputs are int64 [batch, sequence]: input_ids, attention_mask, token_type_ids, as tokenizers give
    them; the output is the last hidden state.
    """
    rng = np.random.default_rng(seed)

    def weight(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    def i64(*values: int) -> ov.Node:
        return ops.constant(np.array(values, dtype=np.int64))

    names = ("input_ids", "attention_mask", "token_type_ids")
    params = []
    for name in names:
        param = ops.parameter([-1, sequence], ov.Type.i64, name=name)
        param.get_output_tensor(0).set_names({name})
        param.set_layout(ov.Layout("N?"))
        params.append(param)
    ids, mask, types = params

    def layer_norm(v: Node) -> Node:
        normed = ops.mvn(v, i64(-1), normalize_variance=True, eps=1e-12, eps_mode="inside_sqrt")
        return ops.add(ops.multiply(normed, np.ones(hidden, np.float32)), np.zeros(hidden, np.float32))

    def dense(v: Node, n_in: int, n_out: int) -> Node:
        return ops.add(ops.matmul(v, weight(n_in, n_out), False, False), weight(n_out))

    positions = ops.gather(weight(512, hidden), i64(*range(sequence)), i64(0))
    x = ops.add(ops.add(ops.gather(weight(vocab, hidden), ids, i64(0)), positions),
                ops.gather(weight(2, hidden), types, i64(0)))
    x = layer_norm(x)
    # 0 where attended, -10000 where masked, broadcast over heads and query positions: [batch, 1, 1, sequence]
    additive = ops.multiply(ops.subtract(np.float32(1), ops.convert(mask, ov.Type.f32)), np.float32(-10000))
    additive = ops.unsqueeze(additive, i64(1, 2))
    head_dim = hidden // heads

    def split_heads(v: Node) -> Node:
        return ops.transpose(ops.reshape(v, i64(0, -1, heads, head_dim), special_zero=True), i64(0, 2, 1, 3))

    for _ in range(layers):
        q, k, v = (split_heads(dense(x, hidden, hidden)) for _ in range(3))
        scores = ops.add(ops.divide(ops.matmul(q, k, False, True), np.float32(np.sqrt(head_dim))), additive)
        context = ops.matmul(ops.softmax(scores, -1), v, False, False)
        context = ops.reshape(ops.transpose(context, i64(0, 2, 1, 3)), i64(0, -1, hidden), special_zero=True)
        x = layer_norm(ops.add(x, dense(context, hidden, hidden)))
        ffn = dense(ops.gelu(dense(x, hidden, 4 * hidden), "erf"), 4 * hidden, hidden)
        x = layer_norm(ops.add(x, ffn))
    x.get_output_tensor(0).set_names({"last_hidden_state"})
    return ov.Model([x], params, "bert_encoder")


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
    "mobilenet_v2": mobilenet_v2,
    "resnet50": resnet50,
    "ssdlite_mobilenet_v2": ssdlite_mobilenet_v2,
    "bert_encoder": bert_encoder,
    "tiny_conv": tiny_conv,
}
DEFAULT_ARCHITECTURE = "mobilenet_v2"
