"""The records that cross module boundaries: what was asked for, what the device did, what was measured.

Numbers stay numbers (milliseconds, seconds, frames per second) until the CLI or a plot displays them.
"""

from __future__ import annotations

from collections.abc import Callable
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
        """The last `settle_windows` undisturbed windows agree: (max - min) / mean within `tolerance` on FPS and
        median latency. Windows measured while the host was busy with other work are set aside."""
        clean = [w for w in windows if not w.disturbed]
        if len(clean) < self.settle_windows:
            return False
        last = clean[-self.settle_windows:]
        return all(_spread([getattr(w, name) for w in last]) <= self.tolerance for name in ("fps", "median_ms"))

    def ending(self, windows: list[Window], elapsed_s: float, verdict: Verdict | None = None) -> Ending | None:
        """Why a stability-driven run ends after its latest window, or None to go on: the windows agree, the
        caller's verdict (e.g. smart search: outpaced by a better point) ends it, or the time cap is reached.
        The measurement engine and the search simulator both end their runs here."""
        if self.settled(windows):
            return Ending.SETTLED
        decided = verdict(windows) if verdict is not None else None
        if decided is not None:
            return decided
        return Ending.CAPPED if elapsed_s >= self.max_s else None


def _spread(values: list[float]) -> float:
    mean = sum(values) / len(values)
    return (max(values) - min(values)) / mean if mean > 0 else float("inf")


@dataclass(frozen=True)
class ConfirmRule:
    """How the confirmation round measures its contenders: first `rounds` passes (alternating direction) over
    all of them, each giving every contender one window of `window_s` seconds; then, while some explicit
    configuration can be told neither apart from the leader nor tied with it, more passes over just those and
    the leader, up to `max_rounds` in all and while the round has cost at most `budget_share` of the sweep.

    For a fixed cost, more and shorter windows give the narrower interval (Student's t falls with the passes),
    until each visit's fill and drain (RequestLoop.visit) outweigh the window.
    """

    rounds: int = 6
    window_s: float = 0.25
    max_rounds: int = 20
    budget_share: float = 0.2

    def __post_init__(self) -> None:
        if self.rounds < 2 or self.window_s <= 0 or not 0 < self.budget_share < 1:
            raise ValueError("a confirmation round needs at least 2 passes, windows above 0 s and a budget share "
                             "between 0 and 1")

    def budget_s(self, search_s: float) -> float:
        """The most seconds the round may take after a search of `search_s` seconds: `budget_share` of both."""
        return search_s * self.budget_share / (1 - self.budget_share)


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
    confirm: ConfirmRule | None = field(default_factory=ConfirmRule)

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
    `executed_precision` is the precision the compute layers (convolutions, matmuls) of the compiled
    graph do their arithmetic in, read from the runtime graph: the precision that really ran, which can
    differ from the hint. `weights_precision` is the element type their weights are kept in: an
    FP16-compressed IR on a CPU without native f16 runs f32 math on weights rounded to f16.
    `read_back` holds the other properties that shape a run (PERFORMANCE_HINT, INFERENCE_NUM_THREADS,
    ENABLE_CPU_PINNING, ...), as the compiled model reports them, where the device has them.
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
    weights_precision: str = "unknown"
    read_back: dict[str, str] = field(default_factory=dict)

    @property
    def ran(self) -> str:
        """What ran, in the one wording every table, figure and report uses: 'f32', 'bf16', or
        'f32 math, f16 weights' where the weights are kept in another precision than the arithmetic."""
        math = self.executed_precision
        if self.weights_precision in ("unknown", math) or math == "unknown":
            return math
        return f"{math} math, {self.weights_precision} weights"


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


# Upper quantiles of Student's t for 1..30 degrees of freedom (the normal's beyond): 97.5% for two-sided 95%
# intervals, 99.95% for two-sided 99.9% ones.
_T_QUANTILES = {
    0.95: (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
           2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
           1.960),
    0.999: (636.62, 31.599, 12.924, 8.610, 6.869, 5.959, 5.408, 5.041, 4.781, 4.587, 4.437, 4.318, 4.221, 4.140,
            4.073, 4.015, 3.965, 3.922, 3.883, 3.850, 3.819, 3.792, 3.768, 3.745, 3.725, 3.707, 3.690, 3.674, 3.659,
            3.646, 3.291),
}


def t975(dof: int) -> float:
    """The 97.5% quantile of Student's t: a 95% two-sided interval is mean +- t975(n - 1) * sd / sqrt(n)."""
    return t_quantile(dof, 0.95)


def t_quantile(dof: int, confidence: float) -> float:
    """The quantile of Student's t for a two-sided interval of `confidence` (0.95 or 0.999)."""
    if dof < 1:
        raise ValueError("a t interval needs at least 2 samples")
    table = _T_QUANTILES[confidence]
    return table[min(dof, len(table)) - 1]


# A window measured while other processes used more than this share of all CPUs, or while the hypervisor
# stole more than STEAL_LIMIT of them, measured the host's load as much as the configuration: stopping rules
# and a point's FPS set it aside (when the point has undisturbed windows too), and `show` says so.
FOREIGN_CPU_LIMIT = 0.20
STEAL_LIMIT = 0.10


@dataclass(frozen=True)
class Window:
    """One stretch of a measurement: its throughput, median latency, completions and length (s), and what the
    host did meanwhile: other processes' and the hypervisor's share of all CPUs, this process's CPU seconds
    (every thread) and the CPU clock. The host figures are None where the OS does not expose them."""

    fps: float
    median_ms: float
    requests: int
    seconds: float
    foreign_cpu: float | None = None
    steal: float | None = None
    own_cpu_s: float | None = None
    cpu_mhz: float | None = None

    @property
    def disturbed(self) -> bool:
        return (self.foreign_cpu or 0.0) > FOREIGN_CPU_LIMIT or (self.steal or 0.0) > STEAL_LIMIT


def counted(windows: tuple[Window, ...] | list[Window]) -> tuple[Window, ...]:
    """The windows figures stand on: the undisturbed ones, or every window when all were disturbed."""
    clean = tuple(w for w in windows if not w.disturbed)
    return clean or tuple(windows)


class Ending(str, Enum):
    """Why a measurement ended."""

    SETTLED = "settled"  # the last windows agreed within the tolerance
    CAPPED = "capped"  # the time cap came first: the point never settled
    FIXED = "fixed"  # it ran for a fixed time, with no stability rule
    OUTPACED = "outpaced"  # smart search stopped it early: it could not beat the best point so far
    DECIDED = "decided"  # smart search had its answer: a contender, measured again in the confirmation round


# Told the windows so far, ends a run early (e.g. OUTPACED), or says None to let it go on.
Verdict = Callable[[list[Window]], Ending | None]


@dataclass(frozen=True)
class Measurement:
    """One measured run: every request it started had completed when the clock stopped.

    `windows` are consecutive stretches of the run; `ended` says why it stopped; `client_cpu_share` is
    the CPU time of the Python thread driving the loop over the wall time: near 1, Python rather than
    the device limits throughput. `process_cpu_s` is the whole process's CPU time over the run (every
    thread: OpenVINO's and a GPU driver's too).
    """

    requests: int
    frames: int
    wall_s: float
    latencies_ms: np.ndarray
    windows: tuple[Window, ...]
    ended: Ending = Ending.FIXED
    client_cpu_share: float = 0.0
    process_cpu_s: float | None = None

    @property
    def counted_windows(self) -> tuple[Window, ...]:
        return counted(self.windows)

    @property
    def disturbed_windows(self) -> int:
        return sum(w.disturbed for w in self.windows)

    @property
    def fps(self) -> float:
        """Frames over wall time; over the undisturbed windows alone when some were measured on a busy host."""
        windows = self.counted_windows
        if len(windows) == len(self.windows):
            return self.frames / self.wall_s
        return sum(w.fps * w.seconds for w in windows) / sum(w.seconds for w in windows)

    @property
    def latency(self) -> LatencyStats:
        return LatencyStats.of(self.latencies_ms)

    @property
    def cpu_ms_per_request(self) -> float | None:
        """Milliseconds of this process's CPU time (every thread) per inference request."""
        if self.process_cpu_s is None or self.requests == 0:
            return None
        return 1000 * self.process_cpu_s / self.requests

    @property
    def fps_cv(self) -> float | None:
        """Coefficient of variation of the counted windows' FPS, or None with fewer than 3 windows."""
        values = np.asarray([w.fps for w in self.counted_windows])
        if values.size < 3:
            return None
        return float(values.std(ddof=1) / values.mean())

    @property
    def fps_ci95(self) -> tuple[float, float] | None:
        """95% confidence interval of the mean counted window FPS (Student's t; windows treated as independent,
        which consecutive windows only approximately are). None with fewer than 2 windows."""
        values = np.asarray([w.fps for w in self.counted_windows])
        if values.size < 2:
            return None
        half = t975(values.size - 1) * values.std(ddof=1) / np.sqrt(values.size)
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
class RoundWindow:
    """One window of a confirmation round: its pass (`round`), its place in the whole order of visits, and
    which contender it measured, with that window's request latencies."""

    round: int
    visit: int
    contender: int
    window: Window
    latencies_ms: np.ndarray


@dataclass(frozen=True)
class Contender:
    """A configuration in a confirmation round, with the streams and requests it ran (read back)."""

    config: PointConfig
    streams: int
    nireq: int

    def label(self) -> str:
        """'2 x 4', or 'THROUGHPUT hint (2 x 2)' for a hint baseline."""
        own = f"{self.streams} x {self.nireq}"
        return own if self.config.mode is Mode.GRID else f"{self.config.mode.performance_hint} hint ({own})"


@dataclass(frozen=True)
class Confirmation:
    """The contenders of one device measured interleaved, pass after pass, each compiled model kept alive."""

    device: str
    contenders: tuple[Contender, ...]
    windows: tuple[RoundWindow, ...]
    rounds: int
    window_s: float

    def complete_rounds(self) -> list[int]:
        """Passes in which every contender was measured (an interrupted round leaves the last one short)."""
        seen: dict[int, set[int]] = {}
        for w in self.windows:
            seen.setdefault(w.round, set()).add(w.contender)
        return sorted(r for r, members in seen.items() if len(members) == len(self.contenders))


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
