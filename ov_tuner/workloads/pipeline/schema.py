"""Pipeline records: a video source and a chain of models sharing one device (read from a pipeline file), one split
of the device between them, and the open-loop trials of a split.

Why a split and not one configuration per model: models tuned alone each take the whole device; run side by side
they oversubscribe it. A split gives each stage its own streams, requests and threads, and the decoder its threads.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ov_tuner.schema.config import Mode, PointConfig, Precision
from ov_tuner.schema.edge import CameraTarget, LoadTrial
from ov_tuner.store.tables import Writer

# Its results file, as it registers (ov_tuner.registry).
WRITER = Writer("pipeline", "a pipeline's")

# The name of the decoder's stage in a trial's stage times (the models' stages take their names from the file).
DECODE = "decode"


@dataclass(frozen=True)
class DetectionCount:
    """How many times a per-detection stage runs on a frame: the values of the previous stage's `output` above
    `threshold`, at most `most`."""

    output: str
    threshold: float
    most: int


@dataclass(frozen=True)
class PipelineStage:
    """One model of the chain. It runs on every `every`-th frame of a camera, `per_frame` times (a classifier of
    a fixed number of regions), or as many times as `per_detection` counts in the previous stage's outputs on that
    frame (none where the previous stage did not run). `precision` None is 'auto': the precision the device runs
    by default, or the answer's of `answer_from` (a results file whose answer is this model's solo configuration).
    `model_sha256` ties stored trials to the model file they ran. `shape` fixes the sizes a model leaves dynamic
    besides the batch (each frame or region is one request of one shape)."""

    name: str
    model: str
    device: str = "CPU"
    precision: Precision | None = None
    every: int = 1
    per_frame: int = 1
    per_detection: DetectionCount | None = None
    answer_from: str | None = None
    model_sha256: str = ""
    shape: tuple[tuple[str, tuple[int, ...]], ...] = ()  # (input name, its static shape): a model's dynamic sizes

    @property
    def shapes(self) -> dict[str, list[int]]:
        return {name: list(dims) for name, dims in self.shape}

    def runs_on(self, frame: int) -> bool:
        """Whether this stage runs on a camera's `frame`-th frame (counted from 0)."""
        return frame % self.every == 0


@dataclass(frozen=True)
class VideoSource:
    """Each camera's frames: the video `file` decoded with OpenCV and looped (each camera its own decoder), or,
    without one, frames generated at `width` x `height` (no decode cost). `width` and `height` of a file are its
    own, read when the pipeline file is."""

    file: str | None
    width: int
    height: int


@dataclass(frozen=True)
class Pipeline:
    """What a pipeline file says: the video, the chain of stages, and what each camera needs."""

    stages: tuple[PipelineStage, ...]
    video: VideoSource
    target: CameraTarget


@dataclass(frozen=True, order=True)
class StageSetting:
    """How one stage runs: NUM_STREAMS `streams`, `nireq` requests in flight, INFERENCE_NUM_THREADS `threads` (0:
    the device decides). `streams` 0 is OpenVINO default: PERFORMANCE_HINT=THROUGHPUT alone, and as many requests
    as the compiled model's OPTIMAL_NUMBER_OF_INFER_REQUESTS."""

    streams: int
    nireq: int
    threads: int = 0

    @property
    def default(self) -> bool:
        return self.streams == 0


# OpenVINO left alone, for one stage.
OPENVINO_DEFAULT = StageSetting(0, 0)


@dataclass(frozen=True, order=True)
class Split:
    """The device shared out: one setting per stage, in the pipeline's order, and the decoder's threads."""

    stages: tuple[StageSetting, ...]
    decode_threads: int


def stage_config(stage: PipelineStage, setting: StageSetting) -> PointConfig:
    """The configuration a stage compiles under (batch 1: each frame or region is one request)."""
    assert stage.precision is not None, "a stage's precision is resolved before it compiles"
    if setting.default:
        return PointConfig(stage.device, Precision.FP32, 1, 0, 0, Mode.DEFAULT)
    settings = (("INFERENCE_NUM_THREADS", str(setting.threads)),) if setting.threads else ()
    return PointConfig(stage.device, stage.precision, 1, setting.streams, setting.nireq, settings=settings)


@dataclass(frozen=True)
class StageRan:
    """What one stage ran, read back after its compile: the properties a deployment compiles with to run the same
    (ov_tuner.schema.PointResult.deploy_properties), its requests, streams and the precision its math ran in, and
    the model file compiled (`ir`: the stage's own, or the FP16 or INT8 IR made from it in ov-tuner's cache; ''
    where not kept), so that a deployment can make the same beside the stage's model: the IR's precision
    (`ir_precision`, a Precision's value: fp32 where a split leaves the stage at OpenVINO default; '' in a file stored
    before it was kept) and, for an INT8 IR ov-tuner made, the `ov-tuner quantize` line that makes it (`quantize`:
    the stage's sweep's, or the one ov-tuner ran; '' where the model came quantized)."""

    properties: tuple[tuple[str, str], ...]
    nireq: int
    streams: int
    precision: str
    ir: str = ""
    ir_precision: str = ""
    quantize: str = ""


@dataclass(frozen=True)
class StageTime:
    """One stage's part of a trial's counted frames (the decoder's is named DECODE): `runs` (inferences, or frames
    decoded), their time at work summed (`busy_ms`: each request's own timer; decode and preprocessing for the
    decoder), the time they waited for a free request or thread summed (`wait_ms`), its `slots` (requests in
    flight, or decode threads), and the `seconds` they were counted over: from the first counted arrival to the last
    counted frame's result (the arrivals' period, and the queue draining after it)."""

    name: str
    runs: int
    busy_ms: float
    wait_ms: float
    slots: int
    seconds: float

    @property
    def utilisation(self) -> float:
        """The share of its slots' time the stage was at work."""
        return self.busy_ms / (self.seconds * 1000 * self.slots) if self.slots and self.seconds else 0.0


@dataclass(frozen=True)
class PipelineTrial:
    """One open-loop trial of a split: `load` holds the cameras, frames offered and dropped and each completed
    frame's latency from its arrival to its last stage's result (`load.service_ms` is empty); `stages` the decoder
    first, then each model stage. `pass_number` 0 is the search; 1.. are the passes of the head-to-head rounds of
    the answer and the baselines. `ran` is each stage's read-back. `fps` is the frame rate each camera offered where
    it was not the target's: a pass's trials above it, which find how far past the target a split holds at the
    cameras it served."""

    split: Split
    load: LoadTrial
    stages: tuple[StageTime, ...]
    ran: tuple[StageRan, ...]
    pass_number: int = 0
    fps: float | None = None

    @property
    def busiest(self) -> StageTime | None:
        """The stage (or the decoder) busiest over the trial: where more cameras would queue first."""
        return max(self.stages, key=lambda s: s.utilisation, default=None)


class Origin(str, Enum):
    """Where a split tried came from: a starting point of the search, or a neighbour of the best so far."""

    DEFAULT = "default"  # every model at OpenVINO default, run together (a baseline)
    SOLO = "solo"  # every model at its solo-tuned setting, run together (a baseline)
    SHARED = "shared"  # the cores shared out in proportion to each stage's cost per frame
    NEIGHBOUR = "neighbour"


@dataclass(frozen=True)
class SoloPoint:
    """One stage measured alone, closed loop, at one setting: what its solo-tuned setting is chosen from."""

    stage: int
    setting: StageSetting
    fps: float


@dataclass(frozen=True)
class HarnessCeiling:
    """What ov-tuner's own load harness carries at a split, measured once after the rounds at the answer's
    (ov_tuner.workloads.pipeline.harness): `frames_per_s` completed at `cameras` cameras with the device's work made
    trivial, `reached` (False: every rate tried was carried, so it carries at least that); and the device's bound
    beside it, the frames a second the stages alone (each at its solo rate, `runs_per_frame` requests a frame) and a
    frame's decode on one thread (`decode_ms`, shared by `cores`) would allow if nothing else took a CPU."""

    split: Split
    cameras: int
    frames_per_s: float
    reached: bool
    decode_ms: float
    runs_per_frame: tuple[float, ...]
    solo_fps: tuple[float, ...]
    cores: int

    @property
    def bound_frames_per_s(self) -> float:
        """1 / (each stage's requests a frame over its solo rate, plus a frame's decode over the cores), in frames
        a second: the device's seconds a frame takes, each part as if it had the whole device."""
        seconds = sum(r / max(f, 1e-9) for r, f in zip(self.runs_per_frame, self.solo_fps, strict=True))
        seconds += self.decode_ms / 1000 / max(self.cores, 1)
        return 1 / seconds if seconds > 0 else float("inf")
