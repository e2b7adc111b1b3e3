"""The records that cross module boundaries: what was asked for, what the device did, what was measured.

Numbers stay numbers (milliseconds, seconds, frames per second) until the CLI or a plot displays them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from statistics import median

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


class InputMode(str, Enum):
    """What each measured iteration includes: the inference alone, or copying fresh input data in first."""

    INFERENCE_ONLY = "inference-only"
    FULL = "full"


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
    input_mode: InputMode = InputMode.INFERENCE_ONLY

    @property
    def compile_key(self) -> CompileKey:
        return CompileKey(self.device, self.precision, self.batch, self.streams, self.mode)

    @property
    def heatmap_key(self) -> tuple[str, Precision, int]:
        """The (device, precision, batch) whose streams x nireq points share one heatmap."""
        return (self.device, self.precision, self.batch)

    def label(self) -> str:
        head = f"{self.device} {self.precision.value} batch {self.batch}"
        if self.input_mode is InputMode.FULL:
            head += " with input copies"
        if self.mode is not Mode.GRID:
            return f"{head} PERFORMANCE_HINT={self.mode.performance_hint}"
        return f"{head} {self.streams} streams x {self.nireq} requests"


@dataclass(frozen=True)
class CompileGroup:
    """A compiled model and the request counts to measure on it, in order (0: the device's optimal count)."""

    key: CompileKey
    nireqs: tuple[int, ...]
    input_mode: InputMode = InputMode.INFERENCE_ONLY

    def points(self) -> list[PointConfig]:
        k = self.key
        return [PointConfig(k.device, k.precision, k.batch, k.streams, n, k.mode, self.input_mode)
                for n in self.nireqs]


@dataclass(frozen=True)
class StopRule:
    """When a measurement ends. Durations in seconds."""

    window_s: float = 1.0
    min_window_requests: int = 16
    tolerance: float = 0.03
    settle_windows: int = 3
    max_s: float = 10.0
    fixed_s: float | None = None

    def __post_init__(self) -> None:
        if self.window_s <= 0 or self.max_s <= 0 or self.tolerance < 0 or self.settle_windows < 2:
            raise ValueError("window_s and max_s must be > 0, tolerance >= 0, settle_windows >= 2")

    def settled(self, windows: list[Window]) -> bool:
        """The last `settle_windows` windows agree: (max - min) / mean within `tolerance` on FPS and median."""
        if len(windows) < self.settle_windows:
            return False
        last = windows[-self.settle_windows:]
        return all(_spread([getattr(w, name) for w in last]) <= self.tolerance for name in ("fps", "median_ms"))


def _spread(values: list[float]) -> float:
    mean = sum(values) / len(values)
    return (max(values) - min(values)) / mean if mean > 0 else float("inf")


class Search(str, Enum):
    """How the sweep walks the grid: every point, or only the points that can still win."""

    GRID = "grid"
    SMART = "smart"


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
    stop: StopRule = field(default_factory=StopRule)
    warmup_s: float = 0.1
    input_mode: InputMode = InputMode.INFERENCE_ONLY
    search: Search = Search.GRID
    shapes: dict[str, list[int]] = field(default_factory=dict)
    layouts: dict[str, str] = field(default_factory=dict)
    images: Path | None = None
    baselines: bool = True

    def __post_init__(self) -> None:
        if self.warmup_s < 0:
            raise ValueError("warmup_s must be >= 0")


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


# Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom; 1.96 (normal) beyond.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


@dataclass(frozen=True)
class Window:
    """One stretch of a measurement: its throughput, median latency, completions and length (s)."""

    fps: float
    median_ms: float
    requests: int
    seconds: float


class Ending(str, Enum):
    """Why a measurement ended."""

    SETTLED = "settled"  # the last windows agreed within the tolerance
    CAPPED = "capped"  # the time cap came first: the point never settled
    FIXED = "fixed"  # it ran for a fixed time, with no stability rule
    OUTPACED = "outpaced"  # smart search stopped it early: it could not beat the best point so far


@dataclass(frozen=True)
class Measurement:
    """One measured run: every request it started had completed when the clock stopped.

    `windows` are consecutive stretches of the run; `ended` says why it stopped; `client_cpu_share` is
    the CPU time of the Python thread driving the loop over the wall time: near 1, Python rather than
    the device limits throughput.
    """

    requests: int
    frames: int
    wall_s: float
    latencies_ms: np.ndarray
    windows: tuple[Window, ...]
    ended: Ending = Ending.FIXED
    client_cpu_share: float = 0.0

    @property
    def fps(self) -> float:
        return self.frames / self.wall_s

    @property
    def latency(self) -> LatencyStats:
        return LatencyStats.of(self.latencies_ms)

    @property
    def fps_cv(self) -> float | None:
        """Coefficient of variation of the windows' FPS, or None with fewer than 3 windows."""
        if len(self.windows) < 3:
            return None
        values = np.asarray([w.fps for w in self.windows])
        return float(values.std(ddof=1) / values.mean())

    @property
    def fps_ci95(self) -> tuple[float, float] | None:
        """95% confidence interval of the mean window FPS (Student's t; windows treated as independent,
        which consecutive windows only approximately are). None with fewer than 2 windows."""
        n = len(self.windows)
        if n < 2:
            return None
        values = np.asarray([w.fps for w in self.windows])
        half = (_T975[n - 2] if n - 1 <= len(_T975) else 1.96) * values.std(ddof=1) / np.sqrt(n)
        return (float(values.mean() - half), float(values.mean() + half))


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


# -- cold start and per-layer profile records ----------------------------------------------------


@dataclass(frozen=True)
class ColdStartSample:
    """One repeat, in milliseconds; each figure from a fresh process."""

    read_ms: float
    compile_ms: float
    first_infer_ms: float
    steady_median_ms: float
    cache_write_compile_ms: float
    cache_compile_ms: float
    cache_first_infer_ms: float


@dataclass(frozen=True)
class ColdStart:
    key: CompileKey
    samples: tuple[ColdStartSample, ...]

    def stat(self, name: str) -> tuple[float, float, float]:
        """Median, min and max of one figure over the repeats."""
        values = [getattr(s, name) for s in self.samples]
        return median(values), min(values), max(values)

    @property
    def reason(self) -> str:
        first, steady = self.stat("first_infer_ms")[0], self.stat("steady_median_ms")[0]
        compile_ms, cached = self.stat("compile_ms")[0], self.stat("cache_compile_ms")[0]
        return (f"the first inference takes {first:.2f} ms, {first / steady:.1f}x the steady median of "
                f"{steady:.2f} ms; before it, reading the model takes {self.stat('read_ms')[0]:.1f} ms and compiling "
                f"{compile_ms:.1f} ms, or {cached:.1f} ms from a CACHE_DIR ({cached / compile_ms - 1:+.0%})")


@dataclass(frozen=True)
class LayerTime:
    """One layer's time summed over `calls` executions, in milliseconds."""

    name: str
    layer_type: str
    exec_type: str
    total_ms: float
    calls: int

    @property
    def mean_ms(self) -> float:
        return self.total_ms / self.calls


@dataclass(frozen=True)
class TypeTime:
    layer_type: str
    total_ms: float
    share: float
    cumulative_share: float
    calls: int
    mean_ms: float
    exec_types: tuple[str, ...]


@dataclass(frozen=True)
class Profile:
    """Layer times over `inferences` inferences of one configuration, with their requests' mean latency."""

    config: PointConfig
    inferences: int
    mean_request_ms: float
    layers: tuple[LayerTime, ...]

    @property
    def layer_ms_per_inference(self) -> float:
        return sum(layer.total_ms for layer in self.layers) / self.inferences

    def top_layers(self, count: int) -> list[tuple[LayerTime, float, float]]:
        """The `count` slowest layers with their share and cumulative share of all layer time."""
        total = sum(layer.total_ms for layer in self.layers) or 1.0
        ranked = sorted(self.layers, key=lambda layer: layer.total_ms, reverse=True)
        result, running = [], 0.0
        for layer in ranked[:count]:
            running += layer.total_ms
            result.append((layer, layer.total_ms / total, running / total))
        return result

    def by_type(self) -> list[TypeTime]:
        """Layer time summed by layer type, slowest type first."""
        total = sum(layer.total_ms for layer in self.layers) or 1.0
        groups: dict[str, list[LayerTime]] = {}
        for layer in self.layers:
            groups.setdefault(layer.layer_type, []).append(layer)
        rows, running = [], 0.0
        for layer_type, members in sorted(groups.items(), key=lambda kv: -sum(m.total_ms for m in kv[1])):
            ms = sum(m.total_ms for m in members)
            calls = sum(m.calls for m in members)
            running += ms
            rows.append(TypeTime(layer_type, ms, ms / total, running / total, calls, ms / calls,
                                 tuple(sorted({m.exec_type for m in members}))))
        return rows
