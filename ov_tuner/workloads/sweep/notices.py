"""What a sweep tells its front end as it goes, as data: the front end words it (ov_tuner.present)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ov_tuner.schema import Box, Merged, Precision, Quantization


@dataclass(frozen=True)
class InBox:
    """The box the sweep measures in (a CPU quota, a cpuset), and the INFERENCE_NUM_THREADS values it adds to fit
    it (empty: the whole host, or --set names the threads, or not a CPU alone)."""

    box: Box
    threads: tuple[str, ...]
    quota_set: bool  # the sweep set the quota up itself (--cpus)


@dataclass(frozen=True)
class CgroupsRemoved:
    """Empty cgroups that killed ov-tuner runs had left beside the quota this sweep set up, removed before it."""

    cgroups: tuple[Path, ...]


@dataclass(frozen=True)
class PrecisionSkipped:
    """A precision's first compile on a device failed: the rest of it there is skipped."""

    device: str
    precision: Precision
    error: str  # the failed compile's one line


@dataclass(frozen=True)
class PrecisionsChosen:
    """What `--precision auto` sweeps on a device, and the precisions it measures once, as another."""

    device: str
    swept: tuple[Precision, ...]
    merged: tuple[Merged, ...]


@dataclass(frozen=True)
class PrecisionMerged:
    """`--precision auto` measures a precision once, as another (it runs the same math there)."""

    merged: Merged


@dataclass(frozen=True)
class Quantizing:
    """NNCF starts quantizing the model for int8 (seconds to minutes, once: the IR is cached)."""

    images: bool


@dataclass(frozen=True)
class Quantized:
    """How the INT8 IR the sweep measures was made (or found: cached, or the model came quantized)."""

    record: Quantization


@dataclass(frozen=True)
class QuantizationFailed:
    """NNCF could not quantize the model: int8 is left out, the rest of the sweep goes on."""

    why: str


@dataclass(frozen=True)
class ComparingOutputs:
    """The output comparison with the FP32 reference starts at a batch (on images, or generated inputs)."""

    inputs: int
    batch: int
    images: bool = False


@dataclass(frozen=True)
class OutputsNotCompared:
    """A device and precision whose outputs could not be compared with the reference, and why."""

    device: str
    precision: Precision
    why: str


@dataclass(frozen=True)
class Confirming:
    """The confirmation round starts over this many configurations."""

    configurations: int


@dataclass(frozen=True)
class HostBusy:
    """Other processes used this share of the CPUs while the model was prepared."""

    foreign_cpu: float


@dataclass(frozen=True)
class Resuming:
    """The results file already holds this many measured points of this sweep: they are kept."""

    points: int


Notice = (InBox | CgroupsRemoved | PrecisionSkipped | PrecisionsChosen | PrecisionMerged | Quantizing | Quantized
          | QuantizationFailed | ComparingOutputs | OutputsNotCompared | Confirming | HostBusy | Resuming)
