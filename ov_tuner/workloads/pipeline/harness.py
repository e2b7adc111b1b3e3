"""The pipeline trial's own ceiling (ov_tuner.measure.ceiling): the frames a second a pipeline trial
(ov_tuner.workloads.pipeline.trial) carries when the device has next to nothing to do.

How: the same trial, the same threads and the same requests in flight, with each stage's model swapped for a
trivial one of the same image input (its frames are still cut and resized for it, as the real stage's are) and the
same counted output, which reports as many detections as the real stage found a frame in the trial measured (so
every later stage runs as many requests a frame); and generated frames in place of the video (no decoding, the
device's work, but the same hand-offs). The trial's frames a second are its counted frames over the time from the
window's start to the last one's result (queued frames drain after the window).
"""

from __future__ import annotations

from collections.abc import Sequence

import openvino as ov

from ov_tuner.measure.ceiling import LOOSE_MS, TRIVIAL_CONFIG, ceiling, trivial_model
from ov_tuner.measure.openloop import Arrivals
from ov_tuner.model.inputs import image_input
from ov_tuner.schema import CameraTarget, HarnessCarried
from ov_tuner.workloads.pipeline.schema import VideoSource
from ov_tuner.workloads.pipeline.trial import StageRunner, run_pipeline_trial


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
        model = trivial_model([image_input(runner.compiled.inputs)], counted)
        found.append(StageRunner(runner.stage, core.compile_model(model, "CPU", TRIVIAL_CONFIG), runner.nireq))
    return found


def harness_ceiling(runners: Sequence[StageRunner], video: VideoSource, decode_threads: int, cameras: int,
                    fps: float, detections: Sequence[int] = (), seconds: float = 1.0,
                    lead_in_s: float = 0.3) -> HarnessCarried:
    """The frames a second the harness completes with `runners`' shape of work made trivial (`detections`: as in
    trivial_runners), `cameras` cameras from `fps` each up, and whether that is the ceiling (False: every rate tried
    was completed, so it is at least that)."""
    trivial = trivial_runners(runners, ov.Core(), detections)
    generated = VideoSource(None, video.width, video.height)

    def trial(rate: float) -> tuple[float, float]:
        load, stages = run_pipeline_trial(trivial, generated, decode_threads, Arrivals(max(cameras, 1), rate, seconds),
                                          CameraTarget(rate, LOOSE_MS, 50.0), lead_in_s)
        return load.completed / stages[0].seconds, load.offered / seconds

    return ceiling(trial, fps)
