"""What one point is: its precision, mode and input mode, the key it compiles under, its configuration and labels."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


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
