"""Cold-start and per-layer profile records."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median

from ov_tuner.schema.config import CompileKey, PointConfig, Precision
from ov_tuner.schema.spec import Int8Options


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
            rows.append(TypeTime(layer_type=layer_type, total_ms=ms, share=ms / total,
                                 cumulative_share=running / total, calls=calls, mean_ms=ms / calls,
                                 exec_types=tuple(sorted({m.exec_type for m in members}))))
        return rows


# -- output accuracy ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OutputAccuracy:
    """One output against the FP32 reference over every input (see ov_tuner.analyse.accuracy)."""

    name: str
    exact_kind: bool  # integer or boolean: compared for equality
    max_abs: float
    mean_abs: float
    max_rel: float | None
    cosine: float | None  # the least over the inputs
    top1: float | None  # share of rows whose top class agrees
    top5: float | None  # share of rows whose reference top class is among the top 5
    equal_share: float  # share of values exactly equal
    top_boxes: float | None = None  # detector scores: share of the reference's top (box, class) pairs kept on top
    mask_iou: float | None = None  # a one-channel score map (a text or segmentation detector): IoU of its masks


@dataclass(frozen=True)
class Accuracy:
    """A device, precision and batch's outputs against the FP32 reference (CPU, f32 hint) on `inputs` fixed inputs;
    `error` says why there are no figures (a non-deterministic model, a failed comparison)."""

    device: str
    precision: Precision
    batch: int
    inputs: int
    outputs: tuple[OutputAccuracy, ...]
    error: str | None = None

    @property
    def cosine(self) -> float | None:
        values = [o.cosine for o in self.outputs if o.cosine is not None]
        return min(values) if values else None

    @property
    def top1(self) -> float | None:
        values = [o.top1 for o in self.outputs if o.top1 is not None]
        return min(values) if values else None

    @property
    def top_boxes(self) -> float | None:
        values = [o.top_boxes for o in self.outputs if o.top_boxes is not None]
        return min(values) if values else None

    @property
    def mask_iou(self) -> float | None:
        values = [o.mask_iou for o in self.outputs if o.mask_iou is not None]
        return min(values) if values else None

    @property
    def max_abs(self) -> float | None:
        """The largest absolute error over the floating-point outputs."""
        return max((o.max_abs for o in self.outputs if not o.exact_kind), default=None)

    @property
    def integer_equal(self) -> float | None:
        """The least share of equal values over the integer and boolean outputs."""
        return min((o.equal_share for o in self.outputs if o.exact_kind), default=None)


@dataclass(frozen=True)
class Quantization:
    """How the INT8 IR a sweep measured was made (ov_tuner.quantize), kept in the results file so that every
    int8 figure can say what it rests on.

    `given`: the model was already quantized and was swept as given (nothing made, never quantized twice).
    `images`: calibrated on the user's images (else on generated inputs: a speed figure, not an accuracy one);
    `calibration` inputs went into NNCF and `held_apart` others are what accuracy is measured on; `images_dir` is the
    folder of those images, so the IR can be made again where the cache lost it. `command` is the `ov-tuner quantize`
    line that writes the same IR for deployment: printed for the user, never read back."""

    ir: str
    given: bool
    quantized_ops: int
    images: bool
    calibration: int
    held_apart: int
    options: Int8Options
    nncf_version: str
    seconds: float
    cached: bool
    command: str
    transformer: bool = False  # quantized with NNCF's TRANSFORMER model type (the model has attention)
    images_dir: str | None = None  # the --images folder, as given

    @property
    def speed_only(self) -> bool:
        """Calibrated on generated inputs: its accuracy figures say little about real data."""
        return not self.images and not self.given


@dataclass(frozen=True)
class ModelInputs:
    """How a sweep gave the model its inputs: --shape (by input name, "" for every input) and --layout, as written
    in the model's own layout. Kept in the results file, so that every deploy form reshapes the model as the sweep
    compiled it, and a resumed sweep cannot mix points of other input sizes."""

    shapes: dict[str, list[int]]
    layouts: dict[str, str]
