"""The pipeline answer in the forms people run: a Python script over one AsyncInferQueue per stage, a DL Streamer
gst-launch-1.0 line, an OpenVINO Model Server config.json (both by ov_tuner.present.servers, as a single model's are),
and the record as JSON in the shared envelope. Each compiles every stage with the properties it ran
(StageRan.properties) and its requests.

The tests run the Python script on tiny models and compare what each stage compiled with what the answer says; the
DL Streamer line and the OVMS config are checked as the single-model forms are (tests/test_deploy_formats.py)."""

from __future__ import annotations

from typing import Any

from ov_tuner.present.formats import DeployModel, deploy_file
from ov_tuner.present.servers import (
    VIDEO_STANDIN,
    ServedModel,
    dlstreamer_line,
    inference_element,
    ovms_config_text,
)
from ov_tuner.schema import Precision
from ov_tuner.workloads.pipeline.answer_record import (
    PipelineAnswer,
)
from ov_tuner.workloads.pipeline.present.words import pipeline_rows
from ov_tuner.workloads.pipeline.schema import PipelineStage, StageRan

_SCRIPT = '''"""ov-tuner's pipeline answer: {serves}, split as
{split}.
One camera: every frame goes through the stages in order; run more cameras through the same queues."""
import argparse
import json
import queue
import threading
import time

import cv2
import numpy as np
import openvino as ov

VIDEO = {video!r}
DECODE_THREADS = {decode_threads}  # 0: OpenCV's own choice
# Each stage runs on every `every`-th frame, `per_frame` times, or once per value of the previous stage's
# output `count` = [name, threshold, most] above the threshold (at most `most`), on grid tiles of the frame.
STAGES = {stages}

parser = argparse.ArgumentParser()
parser.add_argument("--video", default=VIDEO, required=VIDEO is None)
parser.add_argument("--frames", type=int, default=0, help="stop after this many frames (0: the whole video)")
args = parser.parse_args()


def tiles(image, n):
    """n regions of the frame in a grid: stand-ins for the boxes your detector finds."""
    cols = int(np.ceil(np.sqrt(n)))
    h, w = image.shape[0] // -(-n // cols), image.shape[1] // cols
    return [image[r * h:(r + 1) * h, c * w:(c + 1) * w] for r, c in (divmod(i, cols) for i in range(n))]


def tensor(image, shape):
    """A BGR image as an NCHW f32 input (add the scaling your model expects)."""
    return np.ascontiguousarray(cv2.resize(image, (shape[3], shape[2])).transpose(2, 0, 1)[None], np.float32)


class Frame:
    def __init__(self, index, image):
        self.index, self.image, self.found, self.left = index, image, 0, 0


def submit(frame, k):
    """Hand the frame to stage k, or the first later stage that runs on it; count it done after the last."""
    for k in range(k, len(STAGES)):
        stage = STAGES[k]
        runs = 0
        if frame.index % stage["every"] == 0:
            runs = stage["per_frame"] if stage["count"] is None else min(frame.found, stage["count"][2])
        frame.found = 0
        if runs:
            frame.left = runs
            inbox[k].put(frame)
            return
    with lock:
        done[0] += 1


def dispatch(k):
    """Stage k's own thread starts its requests: start_async waits for a free one, never in a callback."""
    while (frame := inbox[k].get()) is not None:
        for region in tiles(frame.image, frame.left):
            infer[k].start_async({{0: tensor(region, shapes[k])}}, (frame, k))


def finished(request, job):
    frame, k = job
    count = STAGES[k + 1]["count"] if k + 1 < len(STAGES) else None
    with lock:
        if count:
            frame.found += int((request.get_tensor(count[0]).data > count[1]).sum())
        completed[k] += 1
        frame.left -= 1
        last = frame.left == 0
    if last:
        submit(frame, k + 1)


def read_back(c, key):
    """What the device chose, as a string (None where the device has no such property)."""
    if key not in c.get_property("SUPPORTED_PROPERTIES"):
        return None
    value = c.get_property(key)
    return value.get_type_name() if isinstance(value, ov.Type) else str(value)


def read(path):
    """The model with one frame or region per request, as ov-tuner measured it: a dynamic batch set to 1."""
    model = core.read_model(path)
    shape = model.input(0).get_partial_shape()
    if shape[0].is_dynamic:
        shape[0] = 1
        model.reshape({{model.input(0): shape}})
    return model


core = ov.Core()
compiled = [core.compile_model(read(s["model"]), s["device"], s["properties"]) for s in STAGES]
infer = [ov.AsyncInferQueue(c, s["nireq"]) for c, s in zip(compiled, STAGES)]
shapes = [list(c.input(0).shape) for c in compiled]
inbox = [queue.Queue() for _ in STAGES]
lock, done, completed = threading.Lock(), [0], [0] * len(STAGES)
for q in infer:
    q.set_callback(finished)
print(json.dumps({{"stages": [{{"name": s["name"], "nireq": len(q), **{{
    k: read_back(c, k) for k in ("NUM_STREAMS", "INFERENCE_NUM_THREADS", "INFERENCE_PRECISION_HINT")}}}}
    for s, c, q in zip(STAGES, compiled, infer)]}}), flush=True)

if DECODE_THREADS:
    cv2.setNumThreads(DECODE_THREADS)
video = cv2.VideoCapture(args.video, cv2.CAP_ANY, [cv2.CAP_PROP_N_THREADS, DECODE_THREADS] if DECODE_THREADS else [])
if not video.isOpened():
    raise SystemExit(f"cannot open {{args.video}}")
dispatchers = [threading.Thread(target=dispatch, args=(k,), daemon=True) for k in range(len(STAGES))]
for thread in dispatchers:
    thread.start()
start, index = time.perf_counter(), 0
while args.frames == 0 or index < args.frames:
    ok, image = video.read()
    if not ok:
        break
    submit(Frame(index, image), 0)
    index += 1
for k, thread in enumerate(dispatchers):  # in chain order: a stage hands frames only to later ones
    inbox[k].put(None)
    thread.join()
    infer[k].wait_all()
seconds = time.perf_counter() - start
print(json.dumps({{"frames": done[0], "seconds": round(seconds, 3), "fps": round(done[0] / seconds, 1),
                  "runs": {{s["name"]: n for s, n in zip(STAGES, completed)}}}}))
'''


def _deployed(stage: PipelineStage, ran: StageRan) -> DeployModel:
    """The model file a form compiles for a stage, beside the stage's own (deploy_file): the INT8 IR its quantize line
    makes, the FP16 IR, or the stage's own model; never the copy in ov-tuner's cache the stage ran. A file stored
    before the IR's precision was kept names the file the stage ran."""
    if not ran.ir_precision:
        return DeployModel(ran.ir or stage.model)
    return deploy_file(stage.model, Precision(ran.ir_precision), ran.quantize or None)


def _model(stage: PipelineStage, ran: StageRan) -> str:
    return _deployed(stage, ran).path


def pipeline_made_first(answer: PipelineAnswer) -> tuple[str, ...]:
    """The commands that make the model files the forms load, each once, before anything reads them."""
    made = (_deployed(s, r).make for s, r in zip(answer.pipeline.stages, answer.ran, strict=True))
    return tuple(dict.fromkeys(m for m in made if m))


def stage_plan(stage: PipelineStage) -> dict[str, Any]:
    """A stage's model and how often it runs."""
    count = stage.per_detection
    return {"name": stage.name, "model": stage.model, "device": stage.device, "every": stage.every,
            "per_frame": stage.per_frame,
            "count": None if count is None else [count.output, count.threshold, count.most]}


def pipeline_python(answer: PipelineAnswer) -> str:
    """A script that runs the pipeline on one video as the answer compiled it: one AsyncInferQueue per stage with its
    properties and requests. It prints what each compiled stage read back first (one JSON line), then the frames done
    and their FPS, with each stage's runs."""
    rows = dict(pipeline_rows(answer))
    stages = "".join(_stage_line(s, r) for s, r in zip(answer.pipeline.stages, answer.ran, strict=True))
    return _SCRIPT.format(serves=rows["serves"], split=rows["split"].replace(" | ", ",\n"),
                          decode_threads=answer.split.decode_threads, video=answer.pipeline.video.file,
                          stages=f"[\n{stages}]")


def _stage_line(stage: PipelineStage, ran: StageRan) -> str:
    """A stage in the script's STAGES: its plan and requests on one line, its properties on the next."""
    plan = {**stage_plan(stage), "model": _model(stage, ran), "nireq": ran.nireq}
    head = ", ".join(f"{k!r}: {v!r}" for k, v in plan.items())
    return f"    {{{head},\n     'properties': {dict(ran.properties)!r}}},\n"


def pipeline_dlstreamer(answer: PipelineAnswer) -> str:
    """A gst-launch-1.0 line: the video decoded (VIDEO_STANDIN where the pipeline generated its frames), the first
    stage a gvadetect, each later one a gvaclassify (per detected object where it runs per detection, else on the
    full frame), each with its device, requests, frame interval and compile properties."""
    elements = []
    for i, (stage, ran) in enumerate(zip(answer.pipeline.stages, answer.ran, strict=True)):
        region = [] if i == 0 or stage.per_detection is not None else ["inference-region=full-frame"]
        elements.append(inference_element("gvadetect" if i == 0 else "gvaclassify", _model(stage, ran), stage.device,
                                          ran.nireq, dict(ran.properties), f"inference-interval={stage.every}",
                                          *region))
    return dlstreamer_line(answer.pipeline.video.file or VIDEO_STANDIN, elements)


def pipeline_ovms(answer: PipelineAnswer) -> str:
    """An OVMS config.json serving every stage's model (by its stage's name) with its device, requests and compile
    properties."""
    return ovms_config_text([ServedModel(stage.name, stage.device, ran.nireq, dict(ran.properties))
                             for stage, ran in zip(answer.pipeline.stages, answer.ran, strict=True)])

























