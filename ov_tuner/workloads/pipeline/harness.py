"""The load harness's own ceiling: the frames a second a pipeline trial (ov_tuner.workloads.pipeline.trial) carries
when the device has next to nothing to do, so that a served load near it is known to be set by ov-tuner, not by the
device.

How: the same trial, the same threads and the same requests in flight, with each stage's model swapped for a
trivial one of the same image input (its frames are still cut and resized for it, as the real stage's are) and the
same counted output, which reports as many detections as the real stage found a frame in the trial measured (so
every later stage runs as many requests a frame), compiled on one thread; and generated frames in place of the video
(no decoding, the device's work, but the same hand-offs). The offered rate doubles from the rate given until the
trial's frames a second, its counted frames over the time from the window's start to the last one's result (queued
frames drain after the window), fall below CEILING_SHARE of the rate offered: that rate completed is the ceiling.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import openvino as ov
import openvino.opset13 as ops

from ov_tuner.measure.openloop import Arrivals
from ov_tuner.model.inputs import image_input
from ov_tuner.schema import CameraTarget
from ov_tuner.workloads.pipeline.schema import VideoSource
from ov_tuner.workloads.pipeline.trial import StageRunner, run_pipeline_trial

# A trial that completes less than this share of the frames offered has met the harness's ceiling.
CEILING_SHARE = 0.95
# The most doublings of the offered rate before the ceiling is said to be at least the last rate completed.
MOST_DOUBLINGS = 8
# A budget loose enough that frames queue rather than drop while the harness is behind (a second's worth each camera).
LOOSE_MS = 1_000.0


def trivial_model(runner: StageRunner, counted: tuple[str, float, int] | None) -> ov.Model:
    """A model with `runner`'s image input (shape, type, names) whose one output is the mean of its input, or, where
    the next stage counts detections in an output (`counted`: its name, threshold and how many to report), that
    output holding that many values above the threshold."""
    port = image_input(runner.compiled.inputs)
    parameter = ops.parameter(port.get_partial_shape(), port.get_element_type())
    parameter.output(0).get_tensor().set_names(set(port.get_names()))
    mean = ops.reduce_mean(ops.convert(parameter, ov.Type.f32), ops.constant(np.arange(4, dtype=np.int64)), False)
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
    return ov.Model([output], [parameter], "trivial")


def trivial_runners(runners: Sequence[StageRunner], core: ov.Core,
                    detections: Sequence[int] = ()) -> list[StageRunner]:
    """`runners` with each model made trivial, compiled on the CPU on one thread with as many requests; stage i
    reports `detections[i]` detections a frame to a per-detection stage after it (the most it takes where not
    given)."""
    found = []
    for i, runner in enumerate(runners):
        following = runners[i + 1].stage.per_detection if i + 1 < len(runners) else None
        counted = None if following is None else (following.output, following.threshold,
                                                   min(detections[i], following.most) if i < len(detections)
                                                   else following.most)
        compiled = core.compile_model(trivial_model(runner, counted), "CPU",
                                      {"NUM_STREAMS": "1", "INFERENCE_NUM_THREADS": "1"})
        found.append(StageRunner(runner.stage, compiled, runner.nireq))
    return found


def harness_ceiling(runners: Sequence[StageRunner], video: VideoSource, decode_threads: int, cameras: int,
                    fps: float, detections: Sequence[int] = (), seconds: float = 1.0,
                    lead_in_s: float = 0.3) -> tuple[float, bool]:
    """The frames a second the harness completes with `runners`' shape of work made trivial (`detections`: as in
    trivial_runners), `cameras` cameras from `fps` each up, and whether that is the ceiling (False: every rate tried
    was completed, so it is at least that)."""
    trivial = trivial_runners(runners, ov.Core(), detections)
    generated = VideoSource(None, video.width, video.height)
    rate, completed = fps, 0.0
    for _ in range(MOST_DOUBLINGS):
        arrivals = Arrivals(max(cameras, 1), rate, seconds)
        load, stages = run_pipeline_trial(trivial, generated, decode_threads, arrivals,
                                          CameraTarget(rate, LOOSE_MS, 50.0), lead_in_s)
        completed = load.completed / stages[0].seconds
        if completed < CEILING_SHARE * load.offered / seconds:
            return completed, True
        rate *= 2
    return completed, False
