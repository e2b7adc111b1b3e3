"""The records that cross module boundaries: what was asked for, what the device did, what was measured.

Numbers stay numbers (milliseconds, seconds, frames per second) until the CLI or a plot displays them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

import numpy as np


class Precision(str, Enum):
    """A precision the user asks for: which IR weights to compile and which inference hint to set."""

    FP32 = "fp32"
    FP16 = "fp16"
    BF16 = "bf16"

    @property
    def fp16_weights(self) -> bool:
        """FP16 runs the FP16-compressed IR; the others run the FP32 IR."""
        return self is Precision.FP16

    @property
    def hint(self) -> str:
        """The INFERENCE_PRECISION_HINT value that means this precision."""
        return {"fp32": "f32", "fp16": "f16", "bf16": "bf16"}[self.value]


class Mode(str, Enum):
    """Who chooses streams and requests: ov-tuner's grid, or OpenVINO under a performance hint.

    The hint modes are baselines: what a user gets without tuning. Their points have streams and
    nireq 0 in the configuration; what OpenVINO chose is read back after compiling.
    """

    GRID = "grid"
    LATENCY = "latency"
    THROUGHPUT = "throughput"

    @property
    def performance_hint(self) -> str:
        return self.value.upper()


@dataclass(frozen=True, order=True)
class CompileKey:
    """Everything fixed when a model is compiled; infer requests are not part of it."""

    device: str
    precision: Precision
    batch: int
    streams: int
    mode: Mode = Mode.GRID


@dataclass(frozen=True, order=True)
class PointConfig:
    """One point of the sweep: a compiled configuration measured with `nireq` requests in flight."""

    device: str
    precision: Precision
    batch: int
    streams: int
    nireq: int
    mode: Mode = Mode.GRID

    @property
    def compile_key(self) -> CompileKey:
        return CompileKey(self.device, self.precision, self.batch, self.streams, self.mode)

    @property
    def heatmap_key(self) -> tuple[str, Precision, int]:
        """The (device, precision, batch) whose streams x nireq points share one heatmap."""
        return (self.device, self.precision, self.batch)

    def label(self) -> str:
        head = f"{self.device} {self.precision.value} batch {self.batch}"
        if self.mode is not Mode.GRID:
            return f"{head} PERFORMANCE_HINT={self.mode.performance_hint}"
        return f"{head} {self.streams} streams x {self.nireq} requests"


@dataclass(frozen=True)
class CompileGroup:
    """A compiled model and the request counts to measure on it, in order (0: the device's optimal count)."""

    key: CompileKey
    nireqs: tuple[int, ...]

    def points(self) -> list[PointConfig]:
        k = self.key
        return [PointConfig(k.device, k.precision, k.batch, k.streams, n, k.mode) for n in self.nireqs]


AUTO = "auto"


@dataclass(frozen=True)
class SweepSpec:
    """What the user asked to sweep. `streams`/`nireq` of None mean "auto" (resolved per device)."""

    model: Path
    out: Path
    devices: tuple[str, ...] = ("CPU",)
    precisions: tuple[Precision, ...] = (Precision.FP32, Precision.FP16)
    streams: tuple[int, ...] | None = None
    nireq: tuple[int, ...] | None = None
    batches: tuple[int, ...] = (1,)
    time_s: float = 3.0
    warmup_s: float = 0.1
    shapes: dict[str, list[int]] = field(default_factory=dict)
    baselines: bool = True

    def __post_init__(self) -> None:
        if self.time_s <= 0 or self.warmup_s < 0:
            raise ValueError("time_s must be > 0 and warmup_s >= 0")


@dataclass(frozen=True)
class DeviceInfo:
    """What a device says about itself before anything is compiled on it."""

    name: str
    full_name: str
    streams_range: tuple[int, int] | None
    optimal_nireq: int | None
    capabilities: tuple[str, ...]
    default_precision: str | None

    @property
    def supports_f16(self) -> bool:
        return "FP16" in self.capabilities


@dataclass(frozen=True)
class CompileInfo:
    """A compiled model: what was asked, what the device reports it did, and its cold-start costs.

    `ir_path` is the model file compiled: the source, or the FP16-compressed IR made from it.
    `executed_precision` is the runtime precision of the compute layers (convolutions, matmuls) in
    the compiled graph: the precision that really ran, which can differ from the hint.
    """

    key: CompileKey
    requested: dict[str, str]
    num_streams: int
    inference_precision: str
    executed_precision: str
    optimal_nireq: int
    execution_devices: tuple[str, ...]
    compile_ms: float
    first_infer_ms: float
    ir_path: str = ""


@dataclass(frozen=True)
class LatencyStats:
    """Per-request latency in milliseconds, from the requests' own C++-side timers."""

    median: float
    p90: float
    p99: float
    min: float
    max: float
    count: int

    @classmethod
    def of(cls, latencies_ms: np.ndarray) -> LatencyStats:
        if latencies_ms.size == 0:
            raise ValueError("no latencies to summarise")
        p50, p90, p99 = np.percentile(latencies_ms, [50, 90, 99])
        return cls(
            float(p50), float(p90), float(p99),
            float(latencies_ms.min()), float(latencies_ms.max()), int(latencies_ms.size),
        )


@dataclass(frozen=True)
class Measurement:
    """One steady-state window: every request it started had completed when the clock stopped.

    `slice_fps` is the throughput of equal time slices of the window, a cheap view of its noise.
    """

    requests: int
    frames: int
    wall_s: float
    latencies_ms: np.ndarray
    slice_fps: tuple[float, ...]

    @property
    def fps(self) -> float:
        return self.frames / self.wall_s

    @property
    def latency(self) -> LatencyStats:
        return LatencyStats.of(self.latencies_ms)

    @property
    def fps_cv(self) -> float | None:
        """Coefficient of variation of the slice throughputs, or None when there are too few slices."""
        if len(self.slice_fps) < 3:
            return None
        values = np.asarray(self.slice_fps)
        return float(values.std(ddof=1) / values.mean())


class Status(str, Enum):
    OK = "ok"
    FAILED = "failed"


@dataclass(frozen=True)
class PointResult:
    """A stored point: its configuration, the compiled model it ran on, and its measurement or error."""

    config: PointConfig
    status: Status
    compile: CompileInfo | None = None
    measurement: Measurement | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.status is Status.OK and self.measurement is not None

    @property
    def streams(self) -> int:
        """The streams that ran: read back from the compiled model where there is one."""
        return self.compile.num_streams if self.compile else self.config.streams

    @property
    def nireq(self) -> int:
        """The requests that were in flight: for a hint baseline, the device's optimal number."""
        if self.config.nireq == 0 and self.compile is not None:
            return self.compile.optimal_nireq
        return self.config.nireq

    @property
    def fps(self) -> float:
        assert self.measurement is not None, "only measured points have a throughput"
        return self.measurement.fps

    def latency_ms(self, percentile: int) -> float:
        """Median (50), p90 or p99 latency in milliseconds."""
        assert self.measurement is not None, "only measured points have a latency"
        lat = self.measurement.latency
        return {50: lat.median, 90: lat.p90, 99: lat.p99}[percentile]


@dataclass(frozen=True)
class Environment:
    """Where and on what the results were measured; results from different environments never mix."""

    ov_version: str
    ov_tuner_version: str
    host: str
    cpu_model: str
    cores: int
    python: str
    model_path: str
    model_sha256: str
    model_name: str

    def mismatches(self, other: Environment) -> list[str]:
        """The fields that make `other`'s results not comparable with these."""
        keys = ("ov_version", "host", "cpu_model", "model_sha256")
        return [k for k in keys if getattr(self, k) != getattr(other, k)]
