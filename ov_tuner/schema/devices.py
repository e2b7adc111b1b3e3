"""What a device says about itself, and what a compiled model reports it did."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from ov_tuner.schema.config import CompileKey, Precision


@dataclass(frozen=True)
class DeviceInfo:
    """What a device says about itself before anything is compiled on it.

    A virtual device (AUTO:GPU,CPU, MULTI:..., HETERO:..., BATCH:GPU(4)) names its `members`, has no stream
    range of its own, and carries its members' capabilities and request bounds together.
    """

    name: str
    full_name: str
    streams_range: tuple[int, int] | None
    optimal_nireq: int | None
    capabilities: tuple[str, ...]
    default_precision: str | None
    device_type: str | None = None  # integrated or discrete, where the device says
    members: tuple[str, ...] = ()
    member_bound: int = 0  # a virtual device's members' request bounds, summed

    @property
    def supports_f16(self) -> bool:
        return "FP16" in self.capabilities


def auto_batched(read_back: Mapping[str, str]) -> bool:
    """Whether OpenVINO batched requests itself behind a compiled model: it then reports AUTO_BATCH_TIMEOUT."""
    return "AUTO_BATCH_TIMEOUT" in read_back


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
    from_cache: bool | None = None  # loaded from CACHE_DIR rather than compiled; None where not cached
    native_log: str = ""  # what OpenVINO's plugins or a driver wrote to stdout/stderr while compiling

    @property
    def auto_batched(self) -> bool:
        return auto_batched(self.read_back)

    @property
    def ran(self) -> str:
        """What ran, in the one wording every table, figure and report uses: 'f32', 'bf16', or
        'f32 math, f16 weights' where the weights are kept in another precision than the arithmetic."""
        math = self.executed_precision
        if self.weights_precision in ("unknown", math) or math == "unknown":
            return math
        return f"{math} math, {self.weights_precision} weights"


class MergeReason(str, Enum):
    """Why `--precision auto` measures a precision once, as fp32."""

    NO_CAPABILITY = "no_capability"  # the device does not list the capability: that precision runs f32 math
    SAME_MATH = "same_math"  # a compile read back the same arithmetic as fp32's
    VIRTUAL = "virtual"  # a virtual device: its members may run a precision differently; name it to sweep it


@dataclass(frozen=True)
class Merged:
    """A precision `--precision auto` measures as another on one device, and why."""

    device: str
    precision: Precision
    measured_as: Precision
    reason: MergeReason
    ran: str = "f32"  # what it runs there, in CompileInfo.ran's words
