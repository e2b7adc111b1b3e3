"""A load harness's own ceiling: the load it carries when the device has next to nothing to do, so that a served load
near it is known to be set by ov-tuner, not by the device (the pipeline's trial, ov_tuner.workloads.pipeline.harness;
the single model's open loop, ov_tuner.measure.openloop).

How: the same harness, the same requests in flight, with the model swapped for a trivial one of the same inputs
(`trivial_model`: its output the mean of its first input, or an output the next stage counts detections in), compiled
on one thread. The offered rate doubles from the rate given until what the harness completes a second falls below
CEILING_SHARE of what it was offered: that rate completed is the ceiling.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import openvino as ov
import openvino.opset13 as ops

from ov_tuner.schema import HarnessCarried

# A trial that completes less than this share of the frames offered has met the harness's ceiling.
CEILING_SHARE = 0.95
# The most doublings of the offered rate before the ceiling is said to be at least the last rate completed.
MOST_DOUBLINGS = 8
# A budget loose enough that frames queue rather than drop while the harness is behind (a second's worth each camera).
LOOSE_MS = 1_000.0
# What the trivial model is compiled with: one thread, so that the device's work stays next to nothing.
TRIVIAL_CONFIG = {"NUM_STREAMS": "1", "INFERENCE_NUM_THREADS": "1"}

# One trial of the harness at a frame rate per camera: the frames a second it completed, and those it was offered.
CeilingTrial = Callable[[float], tuple[float, float]]


def trivial_model(ports: Sequence[ov.Output], counted: tuple[str, float, int] | None = None) -> ov.Model:
    """A model with `ports`' inputs (shape, type, names) whose one output is the mean of the first, or, where a next
    stage counts detections in an output (`counted`: its name, threshold and how many to report), that output holding
    that many values above the threshold."""
    parameters = []
    for port in ports:
        parameter = ops.parameter(port.get_partial_shape(), port.get_element_type())
        parameter.output(0).get_tensor().set_names(set(port.get_names()))
        parameters.append(parameter)
    first = parameters[0]
    axes = ops.constant(np.arange(first.get_output_partial_shape(0).rank.get_length(), dtype=np.int64))
    mean = ops.reduce_mean(ops.convert(first, ov.Type.f32), axes, False)
    if counted is None:
        output = mean
        names = {"mean"}
    else:
        name, threshold, found = counted
        values = np.full(max(found, 1), threshold - 1.0, dtype=np.float32)
        values[:found] = threshold + 1.0
        output = ops.add(ops.constant(values), ops.multiply(mean, np.float32(0)))
        names = {name}
    output.output(0).get_tensor().set_names(names)
    return ov.Model([output], parameters, "trivial")


def ceiling(trial: CeilingTrial, fps: float) -> HarnessCarried:
    """The frames a second the harness completes, from `fps` a camera doubling, and whether that is its ceiling
    (False: every rate tried was completed, so it is at least that)."""
    rate, completed = fps, 0.0
    for _ in range(MOST_DOUBLINGS):
        completed, offered = trial(rate)
        if completed < CEILING_SHARE * offered:
            return HarnessCarried(completed, True)
        rate *= 2
    return HarnessCarried(completed, False)
