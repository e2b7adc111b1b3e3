"""Tiny image models and a short clip for the pipeline tests: a 'detector' whose score output the per-detection
count reads, and a 'classifier', both real OpenVINO models of a few convolutions (well under a millisecond each)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops

from ov_tuner.model.clip import write_clip

# The tiny detector's score output: SCORES values, of which ABOVE are 0.9 and the rest 0.1, whatever the frame.
SCORES = 16
ABOVE = 3


def _conv(x: ov.Node, channels_in: int, channels_out: int, seed: int) -> ov.Node:
    weights = np.random.default_rng(seed).normal(0, 0.1, (channels_out, channels_in, 3, 3)).astype(np.float32)
    return ops.relu(ops.convolution(x, ops.constant(weights), [1, 1], [1, 1], [1, 1], [1, 1]))


def tiny_detector(path: Path) -> Path:
    """Image 1x3x64x64 -> 'features' (a convolution's mean) and 'scores' (1 x SCORES: ABOVE of them 0.9)."""
    image = ops.parameter([1, 3, 64, 64], ov.Type.f32, name="image")
    features = ops.reduce_mean(_conv(_conv(image, 3, 8, 1), 8, 8, 2), [2, 3], keep_dims=False)
    fixed = np.where(np.arange(SCORES) < ABOVE, 0.9, 0.1).astype(np.float32)[None, :]
    scores = ops.add(ops.multiply(ops.reduce_sum(features, [1], keep_dims=True), ops.constant(np.float32(0))),
                     ops.constant(fixed))
    features.output(0).get_tensor().set_names({"features"})
    scores.output(0).get_tensor().set_names({"scores"})
    ov.save_model(ov.Model([features, scores], [image], "tiny_detector"), path, compress_to_fp16=False)
    return path


def tiny_classifier(path: Path, batch: int = 1) -> Path:
    """Image Nx3x32x32 -> 'logits' Nx10; `batch` -1 leaves it dynamic, as most exported models are."""
    image = ops.parameter([batch, 3, 32, 32], ov.Type.f32, name="crop")
    pooled = ops.reduce_mean(_conv(image, 3, 8, 3), [2, 3], keep_dims=False)
    weights = np.random.default_rng(4).normal(0, 0.1, (8, 10)).astype(np.float32)
    logits = ops.matmul(pooled, ops.constant(weights), False, False)
    logits.output(0).get_tensor().set_names({"logits"})
    ov.save_model(ov.Model([logits], [image], "tiny_classifier"), path, compress_to_fp16=False)
    return path


def tiny_clip(path: Path, fps: float = 10.0, seconds: float = 1.0) -> Path:
    """A 160x120 Motion-JPEG clip of two generated pictures (gradients, not noise, so it compresses like a photo)."""
    ramp = np.linspace(0, 255, 200, dtype=np.float32)
    first = np.stack([np.tile(ramp, (150, 1)), np.tile(ramp[:150, None], (1, 200)), np.full((150, 200), 90.0)], -1)
    return write_clip([first.astype(np.uint8), first[::-1, ::-1].astype(np.uint8)], path, fps, (160, 120), seconds)
