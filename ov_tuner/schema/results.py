"""Stored results: points, confirmation rounds, and the environment they were measured in."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from ov_tuner.schema.box import Box
from ov_tuner.schema.config import Mode, PointConfig, Precision
from ov_tuner.schema.devices import CompileInfo
from ov_tuner.schema.measurement import Measurement, Window

if TYPE_CHECKING:  # numpy only names a type here: the command line imports schema for --help without it
    import numpy as np

# What the device chose for an explicit configuration besides its streams, as read back: set on deployment so
# that it runs what was measured.
CHOSEN_THREADING = ("INFERENCE_NUM_THREADS", "ENABLE_HYPER_THREADING", "ENABLE_CPU_PINNING")


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

    def deploy_properties(self) -> dict[str, str]:
        """What to compile with for a deployment to run what was measured: the properties asked for
        (PERFORMANCE_HINT, NUM_STREAMS, INFERENCE_PRECISION_HINT, --set ones) and, for an explicit configuration, the
        threading the device chose for it as read back. A baseline leaves OpenVINO to choose again on the deployment
        machine."""
        assert self.compile is not None, "only a compiled point can be deployed"
        properties = dict(self.compile.requested)
        if self.config.explicit:
            properties.update({k: v for k, v in self.compile.read_back.items() if k in CHOSEN_THREADING})
        return dict(sorted(properties.items()))


def twin_of(baseline: PointResult) -> PointConfig:
    """A baseline's choice spelled out: the explicit configuration of the streams and requests it ran, at the
    precision it ran ("OpenVINO default" names none: the one it read back). Where the search measured it, it is a
    candidate in the round, so that the tie rule may deploy OpenVINO's own choice when nothing beats it."""
    c = baseline.config
    precision = c.precision
    if c.mode is Mode.DEFAULT and baseline.compile is not None:
        precision = next((p for p in Precision if p.hint == baseline.compile.inference_precision), Precision.FP32)
    return PointConfig(device=c.device, precision=precision, batch=c.batch, streams=baseline.streams,
                       nireq=baseline.nireq, mode=Mode.EXPLICIT, input_mode=c.input_mode, settings=c.settings)


@dataclass(frozen=True)
class RoundWindow:
    """One window of a confirmation round: its pass (`pass_number`, from 0), its place in the whole order of
    visits, and which contender it measured, with that window's request latencies."""

    pass_number: int
    visit: int
    contender: int
    window: Window
    latencies_ms: np.ndarray


@dataclass(frozen=True)
class Contender:
    """A configuration in a confirmation round, with the streams and requests it ran (read back) and its compile.

    A `twin` is the explicit configuration of the streams and requests a hint baseline ran, measured beside it
    only to tell what the hint sets besides them: a reference, not a candidate for deployment.
    """

    config: PointConfig
    streams: int
    nireq: int
    compile: CompileInfo | None = None
    twin: bool = False

    @property
    def candidate(self) -> bool:
        """A configuration the answer may deploy: explicit, and not a twin."""
        return self.config.explicit and not self.twin

    def label(self) -> str:
        """'2 x 4', 'THROUGHPUT hint (2 x 2)' (PointConfig.short_label)."""
        return self.config.short_label(self.streams, self.nireq)


@dataclass(frozen=True)
class Confirmation:
    """The contenders of one device measured interleaved, pass after pass, each compiled model kept alive."""

    device: str
    contenders: tuple[Contender, ...]
    windows: tuple[RoundWindow, ...]
    passes: int
    window_s: float

    def complete_passes(self) -> list[int]:
        """Passes in which every contender was measured (an interrupted round leaves the last one short)."""
        seen: dict[int, set[int]] = {}
        for w in self.windows:
            seen.setdefault(w.pass_number, set()).add(w.contender)
        return sorted(n for n, members in seen.items() if len(members) == len(self.contenders))


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
    node: str = ""  # the Ray node a fleet sweep ran on (ov_tuner.fleet); empty for a sweep run in place
    box: Box | None = None  # what the process could use of the host (None: a file from before ov-tuner read it)

    def mismatches(self, other: Environment) -> list[str]:
        """The fields that make `other`'s results not comparable with these: another host, model or OpenVINO, or
        another box (a CPU quota or cpuset) on the same host."""
        keys = ("ov_version", "host", "cpu_model", "model_sha256")
        found = [k for k in keys if getattr(self, k) != getattr(other, k)]
        if self.box is not None and other.box is not None and self.box.bounds != other.box.bounds:
            found.append("box")
        return found

    @classmethod
    def from_stored(cls, fields: dict[str, Any]) -> Environment:
        """The environment from its JSON in a results file."""
        box = fields.get("box")
        return cls(**{**fields, "box": Box(**{**box, "cpuset": tuple(box["cpuset"])}) if box else None})
