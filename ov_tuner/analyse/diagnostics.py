"""Warnings about stored results, as data: each says what is off and what to do about it.

Only the CLI and the report render them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import Enum
from itertools import pairwise
from statistics import median

from ov_tuner.devices.decisions import auto_batched
from ov_tuner.schema import CompileInfo, Ending, Measurement, Mode, PointResult, Precision

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
    UNSTABLE = "did not settle"
    CLIENT_BOUND = "client-bound"
    DISTURBED = "measured on a busy host"
    AUTO_BATCHED = "auto-batched"


_HINTS = {
    DiagnosticKind.FAILED: "the error is stored with the point; rerun the sweep to retry failed points",
    DiagnosticKind.PRECISION: "compare precisions by what ran, not by their names",
    DiagnosticKind.STREAMS: "the device changed NUM_STREAMS; read the cell as the read-back stream count",
    DiagnosticKind.IDLE_STREAMS: "some streams sit idle; use nireq >= streams for throughput",
    DiagnosticKind.NOISY: "the machine was busy or the window short; rerun with a longer --time",
    DiagnosticKind.UNSTABLE: "its FPS averages a drifting run; rerun on a quieter machine or raise --max-time",
    DiagnosticKind.CLIENT_BOUND: "the Python loop, not the device, limits this point; its FPS understates the device",
    DiagnosticKind.DISTURBED: "those windows are set aside where others are clean; rerun it on a quieter host",
    DiagnosticKind.AUTO_BATCHED: "OpenVINO batched requests itself: its figures are not those of the streams and "
                                 "requests it names; sweep with --set ALLOW_AUTO_BATCHING=NO",
}


_ENDINGS = {
    Ending.SETTLED: "settled (the last windows agreed)",
    Ending.CAPPED: "reached --max-time without settling",
    Ending.FIXED: "ran for a fixed time",
    Ending.OUTPACED: "stopped early by smart search (outpaced by a better point)",
    Ending.DECIDED: "stopped once smart search had its answer (a contender: confirmed head to head after)",
}


@dataclass(frozen=True)
class Diagnostic:
    """A warning about stored results, with what to do about it."""

    kind: DiagnosticKind
    label: str
    detail: str

    @property
    def hint(self) -> str:
        return _HINTS[self.kind]


def how_measured(points: list[PointResult]) -> str:
    """How far the figures can be trusted, in one sentence: why the measurements ended, and their noise."""
    measured = [p.measurement for p in points if p.measurement is not None]
    if not measured:
        return "No point was measured."
    ended = Counter(m.ended for m in measured)
    cvs = [m.fps_cv for m in measured if m.fps_cv is not None]
    noise = f"; FPS varied across windows by a median {median(cvs):.1%} (CV), at most {max(cvs):.1%}" if cvs else ""
    return (f"{len(measured)} points measured: "
            f"{', '.join(f'{ended[e]} {_ENDINGS[e]}' for e in Ending if ended[e])}{noise}.")


def diagnostics(points: list[PointResult]) -> list[Diagnostic]:
    """Everything a reader of these results should know before trusting a number."""
    found: list[Diagnostic] = []
    seen_compiles: set[object] = set()
    for p in points:
        label = p.config.label()
        if not p.ok:
            found.append(Diagnostic(DiagnosticKind.FAILED, label, (p.error or "no message").splitlines()[0]))
            continue
        c = p.compile
        if c is not None and c.key not in seen_compiles:
            seen_compiles.add(c.key)
            detail = _precision_detail(p.config.precision, c) if p.config.mode is not Mode.DEFAULT else None
            said = (p.config.device, p.config.precision, detail)
            if detail and said not in seen_compiles:  # once per device and precision, not once per compile
                seen_compiles.add(said)
                found.append(Diagnostic(DiagnosticKind.PRECISION, f"{p.config.device} {p.config.precision.value}",
                                        detail))
            if c.key.mode is Mode.EXPLICIT and auto_batched(c.read_back):
                found.append(Diagnostic(DiagnosticKind.AUTO_BATCHED, label, "an explicit configuration read back "
                                        f"AUTO_BATCH_TIMEOUT {c.read_back['AUTO_BATCH_TIMEOUT']} ms"))
            if c.key.mode is Mode.EXPLICIT and c.num_streams != c.key.streams:
                found.append(Diagnostic(DiagnosticKind.STREAMS, label,
                                        f"asked {c.key.streams} streams, device runs {c.num_streams}"))
        if p.nireq < p.streams:
            found.append(Diagnostic(DiagnosticKind.IDLE_STREAMS, label, f"{p.nireq} requests for {p.streams} streams"))
        m = p.measurement
        assert m is not None
        if m.fps_cv is not None and m.fps_cv > NOISY_FPS_CV:
            detail = f"throughput varied {m.fps_cv:.0%} (CV) across windows"
            found.append(Diagnostic(DiagnosticKind.NOISY, label, detail))
        if m.ended is Ending.CAPPED:
            found.append(Diagnostic(DiagnosticKind.UNSTABLE, label,
                                    f"{len(m.windows)} windows in {m.wall_s:.1f} s never agreed within the tolerance"))
        if m.client_cpu_share > CLIENT_BOUND_CPU_SHARE:
            found.append(Diagnostic(DiagnosticKind.CLIENT_BOUND, label,
                                    f"the Python loop was busy {m.client_cpu_share:.0%} of the time"))
        if m.disturbed_windows:
            found.append(Diagnostic(DiagnosticKind.DISTURBED, label, _disturbance(m)))
    return found + _flat_request_steps(points)


def _precision_detail(precision: Precision, c: CompileInfo) -> str | None:
    """What differs between the precision asked for and what ran, in CompileInfo.ran's words; None if nothing."""
    asked = c.requested.get("INFERENCE_PRECISION_HINT", "")
    if asked != precision.hint:
        capability = precision.hint.upper().replace("F", "FP")
        return (f"{precision.value} means the {precision.hint} hint, but {c.key.device} lists no {capability} "
                f"capability, so ov-tuner asked for {asked}: it ran {c.ran}")
    if c.executed_precision not in (asked, "unknown") or c.inference_precision != asked:
        return f"asked for {asked}; the device reports {c.inference_precision} and ran {c.ran}"
    return None


def _disturbance(m: Measurement) -> str:
    """'2 of 9 windows were measured while other processes used 35% of the CPUs (the hypervisor stole 1%)'."""
    disturbed = [w for w in m.windows if w.disturbed]
    foreign = max(w.foreign_cpu or 0.0 for w in disturbed)
    steal = max(w.steal or 0.0 for w in disturbed)
    return (f"{len(disturbed)} of {len(m.windows)} windows were measured while other processes used up to "
            f"{foreign:.0%} of the CPUs and the hypervisor stole up to {steal:.0%}")


def _flat_request_steps(points: list[PointResult]) -> list[Diagnostic]:
    """Doubling requests raised neither FPS nor latency: the extra requests never ran in parallel."""
    found = []
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
                found.append(Diagnostic(DiagnosticKind.CLIENT_BOUND, b.config.label(),
                                        f"from {a.nireq} to {b.nireq} requests FPS {fps_gain:+.0%} and median latency "
                                        f"{latency_rise:+.0%}: the extra requests were not served in parallel"))
    return found
