"""Cold-start and per-layer profile records."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median

from ov_tuner.schema.config import CompileKey, PointConfig


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
