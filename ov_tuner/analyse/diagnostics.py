"""Warnings about stored results, as data: each names what is off and the figures behind it. ov_tuner.present says
them, with what to do about each."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from itertools import pairwise
from statistics import median
from typing import ClassVar

from ov_tuner.schema import CompileInfo, Ending, Measurement, Mode, PointConfig, PointResult, Precision

# A point whose window-to-window throughput varies more than this (coefficient of variation) is noisy.
NOISY_FPS_CV = 0.10
# The Python thread driving the loop was busy this share of the wall time: it, not the device, set the pace.
CLIENT_BOUND_CPU_SHARE = 0.85
# More requests that add less FPS than this and less median latency than that were not served in parallel.
FLAT_FPS_GAIN, FLAT_LATENCY_RISE = 0.03, 0.20


class DiagnosticKind(str, Enum):
    FAILED = "failed point"
    PRECISION = "precision differs from request"
    STREAMS = "streams differ from request"
    IDLE_STREAMS = "fewer requests than streams"
    NOISY = "noisy point"
    UNSETTLED = "unsettled point"
    CLIENT_BOUND = "client-bound"
    FLAT_STEP = "requests not served in parallel"
    DISTURBED = "measured on a busy host"
    AUTO_BATCHED = "auto-batched"


@dataclass(frozen=True)
class Diagnostic:
    """A warning about stored results: the configuration it is about (for a precision that ran otherwise, the first
    of its device and precision). Each kind is a subclass with its own figures, which ov_tuner.present words."""

    config: PointConfig
    kind: ClassVar[DiagnosticKind]


@dataclass(frozen=True)
class FailedPoint(Diagnostic):
    error: str  # the first line of the stored error
    kind: ClassVar[DiagnosticKind] = DiagnosticKind.FAILED


@dataclass(frozen=True)
class PrecisionDiffers(Diagnostic):
    """The precision asked for, the hint ov-tuner set (`asked`: another than the precision's own where the device
    lists no capability for it), what the device reports and what ran."""

    precision: Precision
    device: str
    asked: str
    reported: str
    ran: str
    kind: ClassVar[DiagnosticKind] = DiagnosticKind.PRECISION


@dataclass(frozen=True)
class AutoBatched(Diagnostic):
    timeout_ms: str  # AUTO_BATCH_TIMEOUT, as read back
    kind: ClassVar[DiagnosticKind] = DiagnosticKind.AUTO_BATCHED


@dataclass(frozen=True)
class StreamsDiffer(Diagnostic):
    asked: int
    ran: int
    kind: ClassVar[DiagnosticKind] = DiagnosticKind.STREAMS


@dataclass(frozen=True)
class IdleStreams(Diagnostic):
    requests: int
    streams: int
    kind: ClassVar[DiagnosticKind] = DiagnosticKind.IDLE_STREAMS


@dataclass(frozen=True)
class NoisyPoint(Diagnostic):
    fps_cv: float  # window-to-window coefficient of variation
    kind: ClassVar[DiagnosticKind] = DiagnosticKind.NOISY


@dataclass(frozen=True)
class DidNotSettle(Diagnostic):
    windows: int
    seconds: float
    kind: ClassVar[DiagnosticKind] = DiagnosticKind.UNSETTLED


@dataclass(frozen=True)
class ClientBound(Diagnostic):
    share: float  # of the wall time the Python loop was busy
    kind: ClassVar[DiagnosticKind] = DiagnosticKind.CLIENT_BOUND


@dataclass(frozen=True)
class RequestsNotParallel(Diagnostic):
    """From `from_nireq` to `to_nireq` requests, FPS and median latency barely moved."""

    from_nireq: int
    to_nireq: int
    fps_gain: float
    latency_rise: float
    kind: ClassVar[DiagnosticKind] = DiagnosticKind.FLAT_STEP


@dataclass(frozen=True)
class BusyHost(Diagnostic):
    """Windows measured while other processes used the CPUs (`foreign`, the most) or the hypervisor stole them."""

    disturbed: int
    windows: int
    foreign: float
    steal: float
    kind: ClassVar[DiagnosticKind] = DiagnosticKind.DISTURBED


@dataclass(frozen=True)
class HowMeasured:
    """How far the figures can be trusted: how many points, why their measurements ended, their window noise."""

    points: int
    endings: Mapping[Ending, int]
    median_cv: float | None
    max_cv: float | None


def how_measured(points: list[PointResult]) -> HowMeasured:
    measured = [p.measurement for p in points if p.measurement is not None]
    cvs = [m.fps_cv for m in measured if m.fps_cv is not None]
    return HowMeasured(len(measured), Counter(m.ended for m in measured), median(cvs) if cvs else None,
                       max(cvs) if cvs else None)


def diagnostics(points: list[PointResult]) -> list[Diagnostic]:
    """Everything a reader of these results should know before trusting a number."""
    found: list[Diagnostic] = []
    seen: set[object] = set()
    for p in points:
        if not p.ok:
            error = (p.error or "no message").splitlines()[0]
            found.append(FailedPoint(p.config, error))
            continue
        c = p.compile
        if c is not None and c.key not in seen:
            seen.add(c.key)
            found += _compile_diagnostics(p, c, seen)
        if p.nireq < p.streams:
            found.append(IdleStreams(p.config, p.nireq, p.streams))
        m = p.measurement
        assert m is not None
        found += _measurement_diagnostics(p.config, m)
    return found + _flat_request_steps(points)


def _compile_diagnostics(p: PointResult, c: CompileInfo, seen: set[object]) -> list[Diagnostic]:
    """What a compile did otherwise than asked: precision (once per device and precision), auto-batching, streams."""
    found: list[Diagnostic] = []
    precision = _precision_differs(p.config, c) if p.config.mode is not Mode.DEFAULT else None
    said = (p.config.device, p.config.precision)
    if precision is not None and said not in seen:
        seen.add(said)
        found.append(precision)
    if c.key.mode is Mode.EXPLICIT and c.auto_batched:
        found.append(AutoBatched(p.config, c.read_back["AUTO_BATCH_TIMEOUT"]))
    if c.key.mode is Mode.EXPLICIT and c.num_streams != c.key.streams:
        found.append(StreamsDiffer(p.config, c.key.streams, c.num_streams))
    return found


def _measurement_diagnostics(config: PointConfig, m: Measurement) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    if m.fps_cv is not None and m.fps_cv > NOISY_FPS_CV:
        found.append(NoisyPoint(config, m.fps_cv))
    if m.ended is Ending.UNSETTLED:
        found.append(DidNotSettle(config, len(m.windows), m.wall_s))
    if m.client_cpu_share > CLIENT_BOUND_CPU_SHARE:
        found.append(ClientBound(config, m.client_cpu_share))
    if m.disturbed_windows:
        disturbed = [w for w in m.windows if w.disturbed]
        found.append(BusyHost(config, len(disturbed), len(m.windows), max(w.foreign_cpu or 0.0 for w in disturbed),
                              max(w.steal or 0.0 for w in disturbed)))
    return found


def _precision_differs(config: PointConfig, c: CompileInfo) -> PrecisionDiffers | None:
    """What differs between the precision asked for and what ran; None if nothing."""
    precision = config.precision
    asked = c.requested.get("INFERENCE_PRECISION_HINT", "")
    ran_as_asked = c.executed_precision in (*precision.math, "unknown")
    if asked != precision.hint or not ran_as_asked or c.inference_precision != asked:
        return PrecisionDiffers(config, precision, c.key.device, asked, c.inference_precision, c.ran)
    return None


def _flat_request_steps(points: list[PointResult]) -> list[Diagnostic]:
    """Doubling requests raised neither FPS nor latency: the extra requests never ran in parallel."""
    found: list[Diagnostic] = []
    by_compile: dict[object, list[PointResult]] = {}
    for p in points:
        if p.ok and p.config.mode is Mode.EXPLICIT:
            by_compile.setdefault((p.config.compile_key, p.config.input_mode), []).append(p)
    for group in by_compile.values():
        group.sort(key=lambda p: p.config.nireq)
        for a, b in pairwise(group):
            if b.nireq < 2 * a.nireq or a.nireq < a.streams:
                continue
            fps_gain, latency_rise = b.fps / a.fps - 1, b.latency_ms(50) / a.latency_ms(50) - 1
            if fps_gain < FLAT_FPS_GAIN and latency_rise < FLAT_LATENCY_RISE:
                found.append(RequestsNotParallel(b.config, a.nireq, b.nireq, fps_gain, latency_rise))
    return found
