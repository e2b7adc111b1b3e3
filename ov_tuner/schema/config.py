"""What the user asks for: precisions, modes, the configuration of a point, stopping rules, the sweep's spec."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from ov_tuner.schema.measurement import Ending, Verdict, Window


class Precision(str, Enum):
    """A precision the user asks for: which IR weights to compile and which inference hint to set."""

    FP32 = "fp32"
    FP16 = "fp16"
    BF16 = "bf16"
    INT8 = "int8"  # the INT8 IR NNCF makes (ov_tuner.quantize); what it leaves in float runs at f32

    @property
    def fp16_weights(self) -> bool:
        """FP16 runs the FP16-compressed IR; the others run the FP32 IR."""
        return self is Precision.FP16

    @property
    def math(self) -> tuple[str, ...]:
        """The element types its compute layers run in when it runs as asked (read back after a compile)."""
        return ("u8", "i8") if self is Precision.INT8 else (self.hint,)

    @property
    def hint(self) -> str:
        """The INFERENCE_PRECISION_HINT value that means this precision. INT8 asks f32 for the layers quantization
        left in float, so that int8 against fp32 measures what quantizing does and nothing else."""
        return {"fp32": "f32", "fp16": "f16", "bf16": "bf16", "int8": "f32"}[self.value]


class InputMode(str, Enum):
    """What each measured iteration includes: the inference alone, or copying fresh input data in first."""

    INFERENCE_ONLY = "inference-only"
    FULL = "full"


class Mode(str, Enum):
    """Who chooses streams and requests: ov-tuner (an explicit point), or OpenVINO under a performance hint.

    On a real device the hint modes are baselines: what a user gets without tuning. Their points have
    streams and nireq 0 in the configuration; what OpenVINO chose is read back after compiling. DEFAULT is
    OpenVINO left alone: PERFORMANCE_HINT=THROUGHPUT and nothing else set, no precision hint either, exactly
    what `benchmark_app -hint throughput` runs; its configuration names the IR as given (fp32) and the
    precision it ran is read back. A virtual device (AUTO, MULTI, HETERO, BATCH) takes a hint rather than a
    stream count: its points are a hint with an explicit request count (nireq > 0).
    """

    EXPLICIT = "explicit"  # streams and requests chosen by the tuner (stored as "grid" before results schema v5)
    LATENCY = "latency"
    THROUGHPUT = "throughput"
    THROUGHPUT_UNBATCHED = "throughput_unbatched"  # THROUGHPUT with ALLOW_AUTO_BATCHING=NO, beside an auto-batched one
    CUMULATIVE_THROUGHPUT = "cumulative_throughput"
    DEFAULT = "default"

    @property
    def performance_hint(self) -> str:
        """The PERFORMANCE_HINT a compile of this mode sets (an explicit point's too: it runs as a throughput
        deployment does, with its own NUM_STREAMS)."""
        if self in (Mode.THROUGHPUT_UNBATCHED, Mode.DEFAULT, Mode.EXPLICIT):
            return "THROUGHPUT"
        return self.value.upper()

    @property
    def hint_name(self) -> str:
        """The one name of this hint wherever it appears: 'THROUGHPUT hint', 'THROUGHPUT hint, auto-batching off',
        'OpenVINO default'."""
        if self is Mode.DEFAULT:
            return "OpenVINO default"
        if self is Mode.THROUGHPUT_UNBATCHED:
            return "THROUGHPUT hint, auto-batching off"
        return f"{self.performance_hint} hint"


# Compile properties set with --set, as sorted (KEY, VALUE) pairs: part of a configuration like its streams.
Settings = tuple[tuple[str, str], ...]


def cell_text(streams: int, nireq: int) -> str:
    """Streams by requests, written the one way every label writes them: '2 x 4'."""
    return f"{streams} x {nireq}"


def settings_text(settings: Settings) -> str:
    """'INFERENCE_NUM_THREADS=1 ENABLE_CPU_PINNING=NO', or '' for none."""
    return " ".join(f"{k}={v}" for k, v in settings)


@dataclass(frozen=True, order=True)
class CompileKey:
    """Everything fixed when a model is compiled; infer requests are not part of it."""

    device: str
    precision: Precision
    batch: int
    streams: int
    mode: Mode = Mode.EXPLICIT
    settings: Settings = ()


@dataclass(frozen=True, order=True)
class PointConfig:
    """One point of the sweep: a compiled configuration measured with `nireq` requests in flight."""

    device: str
    precision: Precision
    batch: int
    streams: int
    nireq: int
    mode: Mode = Mode.EXPLICIT
    input_mode: InputMode = InputMode.INFERENCE_ONLY
    settings: Settings = ()

    @property
    def compile_key(self) -> CompileKey:
        return CompileKey(self.device, self.precision, self.batch, self.streams, self.mode, self.settings)

    @property
    def scope(self) -> str:
        """The device and its --set properties: 'CPU', or 'CPU INFERENCE_NUM_THREADS=1'."""
        return f"{self.device} {settings_text(self.settings)}".strip()

    @property
    def heatmap_key(self) -> tuple[str, Precision, int]:
        """The (scope, precision, batch) whose streams x nireq points share one heatmap."""
        return (self.scope, self.precision, self.batch)

    @property
    def explicit(self) -> bool:
        """A configuration the tuner chose: streams and requests, or (on a virtual device) a hint with a request
        count. The others are hint baselines, where OpenVINO chose both."""
        return self.mode is Mode.EXPLICIT or self.nireq > 0

    def short_label(self, streams: int, nireq: int, ran: str | None = None) -> str:
        """The configuration within its device, precision and batch, with the streams and requests it ran:
        '2 x 4'; 'THROUGHPUT hint (2 x 2)' and 'OpenVINO default (2 x 2, ran bf16)' for baselines, where
        OpenVINO chose them (and, given `ran`, the precision); 'CUMULATIVE_THROUGHPUT, 16 requests' for a virtual
        device's point."""
        own = cell_text(streams, nireq)
        if self.mode is Mode.EXPLICIT:
            return own
        if self.explicit:
            return f"{self.mode.performance_hint}, {nireq} requests"
        return f"{self.mode.hint_name} ({own}{f', ran {ran}' if ran else ''})"

    def label(self) -> str:
        """The configuration in full: 'CPU fp32 batch 1 2 streams x 4 requests', 'CPU fp32 batch 1 LATENCY hint',
        'AUTO:GPU,CPU fp32 batch 1 CUMULATIVE_THROUGHPUT x 8 requests', 'CPU batch 1 OpenVINO default'."""
        precision = "" if self.mode is Mode.DEFAULT else f" {self.precision.value}"
        head = f"{self.scope}{precision} batch {self.batch}"
        if self.input_mode is InputMode.FULL:
            head += " with input copies"
        if self.mode is Mode.EXPLICIT:
            return f"{head} {self.streams} streams x {self.nireq} requests"
        if self.nireq:
            return f"{head} {self.mode.performance_hint} x {self.nireq} requests"
        return f"{head} {self.mode.hint_name}"


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
    """The search mode: every point of the space ("grid"), or only the points that can still win ("smart")."""

    GRID = "grid"
    SMART = "smart"


AUTO = "auto"


class Preset(str, Enum):
    """NNCF's quantization presets: symmetric weights and activations, or asymmetric activations (better where
    activations are not centred on zero, a little slower)."""

    PERFORMANCE = "performance"
    MIXED = "mixed"


# Calibration inputs by default: NNCF's own 300 from images (as many as there are); 64 generated ones, since noise
# only sets a speed figure and more of it costs time for nothing.
CALIBRATION_IMAGES = 300
CALIBRATION_GENERATED = 64


@dataclass(frozen=True)
class Int8Options:
    """How the INT8 IR is made: NNCF's preset, how many calibration inputs it takes (None: CALIBRATION_IMAGES or
    CALIBRATION_GENERATED), and, with accuracy control, the most top-1 agreement with FP32 (percentage points;
    cosine where no output holds class scores) it may give up on held-apart inputs (None: plain post-training
    quantization)."""

    preset: Preset = Preset.PERFORMANCE
    subset_size: int | None = None
    max_drop: float | None = None

    def __post_init__(self) -> None:
        if (self.subset_size is not None and self.subset_size < 1) or (
                self.max_drop is not None and not 0 <= self.max_drop <= 100):
            raise ValueError("subset_size must be >= 1 and max_drop between 0 and 100")

    def calibration_count(self, images: bool) -> int:
        """How many calibration inputs NNCF takes."""
        return self.subset_size or (CALIBRATION_IMAGES if images else CALIBRATION_GENERATED)

# How many generated inputs an output-accuracy comparison runs by default (with --images: every image given).
ACCURACY_INPUTS = 32


@dataclass(frozen=True)
class SweepSpec:
    """What the user asked to sweep. `precisions`, `streams` and `nireq` of None mean "auto" (resolved per
    device: ov_tuner.devices.decisions)."""

    model: Path
    out: Path
    devices: tuple[str, ...] = ("CPU",)
    precisions: tuple[Precision, ...] | None = None
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
    settings: dict[str, tuple[str, ...]] = field(default_factory=dict)
    cache_dir: Path | None = None  # CACHE_DIR for compiles where a cache pays (GPU, virtual devices) ...
    cache_everywhere: bool = False  # ... or for every device, when the user named the folder
    accuracy_inputs: int | None = ACCURACY_INPUTS  # outputs against the FP32 reference on this many inputs (None: off)
    int8: Int8Options | None = None  # given: int8 joins --precision auto; its options where precisions name INT8

    def __post_init__(self) -> None:
        if self.warmup_s < 0:
            raise ValueError("warmup_s must be >= 0")

    @property
    def int8_options(self) -> Int8Options | None:
        """How to make the INT8 IR, when int8 is swept (named in `precisions`, or added to auto by `int8`)."""
        if self.int8 is not None or (self.precisions is not None and Precision.INT8 in self.precisions):
            return self.int8 or Int8Options()
        return None
