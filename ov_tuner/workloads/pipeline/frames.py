"""What a pipeline trial (ov_tuner.workloads.pipeline.trial) passes between its threads: a frame on its way down the
chain, a stage's requests for it, a stage's tallies; the arrival schedule and the crops it cuts; and the check that a
per-detection stage counts an output its previous stage has."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ov_tuner.errors import BadInputError
from ov_tuner.measure.openloop import Arrivals
from ov_tuner.workloads.pipeline.schema import PipelineStage, StageTime


@dataclass(eq=False)
class Frame:
    """One admitted frame on its way down the chain."""

    camera: int
    index: int  # the camera's frame counter, dropped frames included
    arrived_ns: int
    counted: bool
    image: np.ndarray | None = None
    pending: int = 0  # the current stage's requests not completed yet
    detections: int = 0  # counted in the current stage's outputs, for the next stage


@dataclass
class Job:
    """One request of a frame at one stage: its crop, cut and converted, ready since `ready_ns`."""

    frame: Frame
    crop: np.ndarray
    ready_ns: int


@dataclass
class Tally:
    """A stage's figures over the counted frames."""

    runs: int = 0
    busy_ms: float = 0.0
    wait_ms: float = 0.0

    def time(self, name: str, slots: int, seconds: float) -> StageTime:
        return StageTime(name, self.runs, self.busy_ms, self.wait_ms, slots, seconds)


def arrival_schedule(arrivals: Arrivals) -> tuple[np.ndarray, np.ndarray]:
    """Arrival times in seconds and each one's camera. Arrivals.times() is sorted, and at constant intervals every
    camera's offset is under one interval: the cameras come in turn either way."""
    times = arrivals.times()
    return times, np.arange(times.size) % arrivals.cameras


def tiles(image: np.ndarray, count: int) -> list[np.ndarray]:
    """`count` regions of `image`: a grid as square as possible, filled row by row."""
    columns = math.ceil(math.sqrt(count))
    rows = math.ceil(count / columns)
    height, width = image.shape[:2]
    cells = (divmod(k, columns) for k in range(count))
    return [image[r * height // rows:(r + 1) * height // rows, c * width // columns:(c + 1) * width // columns]
            for r, c in cells]


def check_counted_output(counting: PipelineStage, previous: PipelineStage, names: set[str]) -> None:
    """A per-detection stage counts an output the stage before it has (`names`: that stage's output names)."""
    assert counting.per_detection is not None
    output = counting.per_detection.output
    if output not in names:
        raise BadInputError(f"stage '{counting.name}' counts detections in '{output}', which stage '{previous.name}' "
                            f"does not output (its outputs: {', '.join(sorted(names))}); name one of them in "
                            "per_detection's output")
