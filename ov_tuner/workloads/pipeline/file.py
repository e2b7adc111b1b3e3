"""The pipeline file (TOML): what each camera needs, the video, and the chain of stages. Paths in it are relative to
the file's own folder, as a config file's usually are. Every mistake is one line naming the key and what to do.

    fps = 15                  # each camera's frames per second
    max_latency_ms = 200      # from a frame's arrival to its last stage's result
    percentile = 99           # the latency percentile held to that budget
    arrival = "constant"      # or "poisson"

    [video]
    file = "clip.avi"         # decoded with OpenCV, looped; or size = [1280, 720]: generated frames, no decode

    [[stage]]
    name = "detect"
    model = "detector.xml"
    device = "CPU"
    precision = "auto"        # fp32, fp16, bf16, int8, or auto
    every = 1                 # run on every N-th frame
    answer = "detector.db"    # optional: a sweep's results file; its answer is this stage's solo setting
    shape = { image = [1, 3, 640, 640] }   # optional: sizes the model leaves dynamic besides the batch

    [[stage]]
    name = "classify"
    model = "classifier.xml"
    per_frame = 2             # or per_detection = { output = "scores", threshold = 0.5, most = 8 }
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ov_tuner.deployable.deployed import Deployed, deployed_from
from ov_tuner.devices.modelfile import open_model_source
from ov_tuner.devices.precision_names import one_precision
from ov_tuner.devices.strings import one_device, parse_devices
from ov_tuner.errors import BadInputError, Given, Input
from ov_tuner.schema import AUTO, Arrival, CameraTarget
from ov_tuner.workloads.pipeline.schema import DetectionCount, Pipeline, PipelineStage, VideoSource
from ov_tuner.workloads.pipeline.video import video_size

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10 has no TOML reader of its own
    import tomli as tomllib

TOP_KEYS = {"fps", "max_latency_ms", "percentile", "arrival", "video", "stage"}
VIDEO_KEYS = {"file", "size"}
STAGE_KEYS = {"name", "model", "device", "precision", "every", "per_frame", "per_detection", "answer", "shape"}
DETECTION_KEYS = {"output", "threshold", "most"}


@dataclass(frozen=True)
class PipelineFile:
    """What a pipeline file says, and what each stage's answer file deploys (None for a stage without one), read
    once: the pipeline tuning starts from these."""

    pipeline: Pipeline
    answers: tuple[Deployed | None, ...]


def read_pipeline(path: Path) -> PipelineFile:
    """The pipeline `path` describes, its models opened (and fingerprinted), its stages' answer files checked to be
    sweeps of their models, and its video's size read."""
    if not path.is_file():
        raise BadInputError(f"pipeline file {path} does not exist; write one (its keys: docs/usage.md, 'A pipeline')")
    try:
        data = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise BadInputError(f"{path} is not a TOML file ({e}); its keys: docs/usage.md, 'A pipeline'") from e
    place = path.name
    _known(data, TOP_KEYS, place)
    folder = path.parent
    target = CameraTarget(_number(data, "fps", place, 15.0), _number(data, "max_latency_ms", place, 200.0),
                          _number(data, "percentile", place, 99.0, below=100.0),
                          _arrival(data.get("arrival", "constant"), place))
    stages = data.get("stage")
    if not isinstance(stages, list) or not stages:
        raise BadInputError(f"{place}: no [[stage]]; name at least one model, e.g. [[stage]] name = \"detect\" "
                            "model = \"detector.xml\"")
    read = [_stage(s, i, folder, place) for i, s in enumerate(stages)]
    chain = tuple(stage for stage, _ in read)
    names = [s.name for s in chain]
    if len(set(names)) != len(names) or "decode" in names:
        raise BadInputError(f"{place}: stage names must differ from each other and from 'decode' ({', '.join(names)})")
    if chain[0].per_detection is not None:
        raise BadInputError(f"{place}: stage '{chain[0].name}' counts detections, but no stage comes before it; "
                            "give the first stage per_frame or nothing")
    return PipelineFile(Pipeline(chain, _video(data.get("video"), folder, place), target),
                        tuple(answer for _, answer in read))


def _stage(data: Any, index: int, folder: Path, place: str) -> tuple[PipelineStage, Deployed | None]:
    """A stage, its device and precision read as --device and --precision are, and what its answer file deploys."""
    where = f"{place} [[stage]] {index + 1}"
    if not isinstance(data, dict):
        raise BadInputError(f"{where} is not a table; write it as [[stage]] with keys {', '.join(sorted(STAGE_KEYS))}")
    _known(data, STAGE_KEYS, where)
    name = data.get("name", f"stage{index + 1}")
    if "model" not in data:
        raise BadInputError(f"{where} names no model; add model = \"path/to/model.xml\"")
    model = folder / str(data["model"])
    if not model.exists():
        raise BadInputError(f"{where}: model {model} does not exist; give the path of an OpenVINO IR (.xml) or ONNX "
                            "file, relative to the pipeline file")
    source = open_model_source(model)
    device_key, precision_key = Given(f"{where} device", "device"), Given(f"{where} precision", "precision")
    device = one_device(parse_devices([str(data.get("device", "CPU"))], device_key).devices, "a stage", device_key)
    precision = one_precision(str(data.get("precision", AUTO)), "a stage", precision_key)
    answer = data.get("answer")
    deployed = None
    if answer is not None:
        answer_file = folder / str(answer)
        if not answer_file.is_file():
            raise BadInputError(f"{where}: answer file {answer_file} does not exist; sweep the model into it first "
                                f"(`ov-tuner sweep MODEL {Input.RESULTS} FILE`) or leave answer out")
        deployed = deployed_from(answer_file, source, Given(f"{where} answer", "answer"))
        if not deployed.batch_one:
            raise BadInputError(f"{where}: answer {answer_file} has no measured batch-1 point to start from; sweep "
                                f"with {Input.BATCH} 1, or leave answer out")
    detection = data.get("per_detection")
    if detection is not None and "per_frame" in data:
        raise BadInputError(f"{where}: give per_frame or per_detection, not both")
    stage = PipelineStage(
        name=str(name), model=str(model), device=device, precision=precision,
        every=_count(data, "every", where), per_frame=_count(data, "per_frame", where),
        per_detection=None if detection is None else _detection(detection, where),
        answer_from=None if answer is None else str(folder / str(answer)), model_sha256=source.sha256,
        shape=_shape(data.get("shape", {}), where))
    return stage, deployed


def _shape(data: Any, where: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
    if not isinstance(data, dict) or not all(
            isinstance(dims, list) and dims and all(isinstance(d, int) and d > 0 for d in dims)
            for dims in data.values()):
        raise BadInputError(f"{where}: shape must name inputs with their sizes, e.g. shape = {{ image = [1, 3, 640, "
                            "640] }")
    return tuple((str(name), tuple(dims)) for name, dims in data.items())


def _detection(data: Any, where: str) -> DetectionCount:
    if not isinstance(data, dict) or "output" not in data:
        raise BadInputError(f"{where}: per_detection needs a table with output, threshold and most, e.g. "
                            "per_detection = { output = \"scores\", threshold = 0.5, most = 8 }")
    _known(data, DETECTION_KEYS, f"{where} per_detection")
    return DetectionCount(str(data["output"]), _number(data, "threshold", where, 0.5, positive=False),
                          _count(data, "most", where, 8))


def _video(data: Any, folder: Path, place: str) -> VideoSource:
    if not isinstance(data, dict) or not ({"file", "size"} & set(data)):
        raise BadInputError(f"{place}: no [video]; add [video] with file = \"clip.avi\" (decoded, looped) or "
                            "size = [1280, 720] (generated frames)")
    _known(data, VIDEO_KEYS, f"{place} [video]")
    if "file" in data:
        file = folder / str(data["file"])
        if not file.is_file():
            raise BadInputError(f"{place}: video {file} does not exist; give a video file OpenCV reads")
        width, height = video_size(file)
        return VideoSource(str(file), width, height)
    size = data["size"]
    if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, int) and v > 0 for v in size)):
        raise BadInputError(f"{place} [video]: size must be [width, height] in pixels, e.g. [1280, 720]")
    return VideoSource(None, size[0], size[1])


def _known(data: Mapping[str, Any], keys: set[str], where: str) -> None:
    unknown = sorted(set(data) - keys)
    if unknown:
        raise BadInputError(f"{where}: unknown key '{unknown[0]}'; the keys are {', '.join(sorted(keys))}")


def _number(data: Mapping[str, Any], key: str, where: str, default: float, below: float | None = None,
            positive: bool = True) -> float:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or (positive and value <= 0) or (
            below is not None and value >= below):
        bound = f" and below {below:g}" if below is not None else ""
        raise BadInputError(f"{where}: {key} must be a number{' above 0' if positive else ''}{bound}, not {value!r}")
    return float(value)


def _count(data: Mapping[str, Any], key: str, where: str, default: int = 1) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise BadInputError(f"{where}: {key} must be a whole number of at least 1, not {value!r}")
    return value


def _arrival(value: Any, where: str) -> Arrival:
    try:
        return Arrival(str(value))
    except ValueError:
        raise BadInputError(f"{where}: arrival must be constant or poisson, not {value!r}") from None
