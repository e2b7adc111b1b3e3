"""Words for how far the figures can be trusted: the diagnostics, each with what to do about it, and how the
measurements ended."""

from __future__ import annotations

from ov_tuner.analyse.diagnostics import (
    AutoBatched,
    BusyHost,
    ClientBound,
    Diagnostic,
    DiagnosticKind,
    DidNotSettle,
    FailedPoint,
    HowMeasured,
    IdleStreams,
    NoisyPoint,
    PrecisionDiffers,
    RequestsNotParallel,
    StreamsDiffer,
)
from ov_tuner.schema import Ending

HINTS = {
    DiagnosticKind.FAILED: "the error is stored with the point; rerun the sweep to retry failed points",
    DiagnosticKind.PRECISION: "compare precisions by what ran, not by their names",
    DiagnosticKind.STREAMS: "the device changed NUM_STREAMS; read the cell as the read-back stream count",
    DiagnosticKind.IDLE_STREAMS: "some streams sit idle; use nireq >= streams for throughput",
    DiagnosticKind.NOISY: "the machine was busy or the window short; rerun with more --seconds",
    DiagnosticKind.UNSETTLED: "its FPS averages a drifting run; rerun on a quieter machine or raise --max-seconds",
    DiagnosticKind.CLIENT_BOUND: "the Python loop, not the device, limits this point; its FPS understates the device",
    DiagnosticKind.FLAT_STEP: "the Python loop, not the device, limits these points; their FPS understates the device",
    DiagnosticKind.DISTURBED: "those windows are set aside where others are clean; rerun it on a quieter host",
    DiagnosticKind.AUTO_BATCHED: "OpenVINO batched requests itself: its figures are not those of the streams and "
                                 "requests it names; sweep with --set ALLOW_AUTO_BATCHING=NO",
}

ENDINGS = {
    Ending.SETTLED: "settled (the last windows agreed)",
    Ending.UNSETTLED: "unsettled (--max-seconds came before the last windows agreed)",
    Ending.FIXED: "ran for a fixed time",
    Ending.OUTPACED: "stopped early by smart search (outpaced by a better point)",
    Ending.DECIDED: "stopped once smart search had its answer (a contender: confirmed head to head after)",
}


def how_measured_text(h: HowMeasured) -> str:
    """'14 points measured: 2 settled (...), 7 stopped early by smart search (...); FPS varied across windows by a
    median 10.2% (CV), at most 22.4%.'"""
    if not h.points:
        return "No point was measured."
    noise = (f"; FPS varied across windows by a median {h.median_cv:.1%} (CV), at most {h.max_cv:.1%}"
             if h.median_cv is not None and h.max_cv is not None else "")
    ended = ", ".join(f"{h.endings[e]} {ENDINGS[e]}" for e in Ending if h.endings.get(e))
    return f"{h.points} points measured: {ended}{noise}."


def diagnostic_subject(d: Diagnostic) -> str:
    """The configuration a diagnostic is about: 'CPU fp32 batch 1 2 streams x 4 requests', or 'CPU fp16' for what
    ran otherwise than asked."""
    if isinstance(d, PrecisionDiffers):
        return f"{d.config.device} {d.config.precision.value}"
    return d.config.label()


def diagnostic_detail(d: Diagnostic) -> str:
    """What is off, with its figures."""
    if isinstance(d, FailedPoint):
        return d.error
    if isinstance(d, PrecisionDiffers):
        if d.asked != d.precision.hint:
            capability = d.precision.hint.upper().replace("F", "FP")
            return (f"{d.precision.value} means the {d.precision.hint} hint, but {d.device} lists no {capability} "
                    f"capability, so ov-tuner asked for {d.asked}: it ran {d.ran}")
        return f"asked for {d.asked}; the device reports {d.reported} and ran {d.ran}"
    if isinstance(d, AutoBatched):
        return f"an explicit configuration read back AUTO_BATCH_TIMEOUT {d.timeout_ms} ms"
    if isinstance(d, StreamsDiffer):
        return f"asked {d.asked} streams, device runs {d.ran}"
    if isinstance(d, IdleStreams):
        return f"{d.requests} requests for {d.streams} streams"
    if isinstance(d, NoisyPoint):
        return f"throughput varied {d.fps_cv:.0%} (CV) across windows"
    if isinstance(d, DidNotSettle):
        return f"{d.windows} windows in {d.seconds:.1f} s never agreed within the tolerance"
    if isinstance(d, ClientBound):
        return f"the Python loop was busy {d.share:.0%} of the time"
    if isinstance(d, RequestsNotParallel):
        return (f"from {d.from_nireq} to {d.to_nireq} requests FPS {d.fps_gain:+.0%} and median latency "
                f"{d.latency_rise:+.0%}: the extra requests were not served in parallel")
    assert isinstance(d, BusyHost), d
    return (f"{d.disturbed} of {d.windows} windows were measured while other processes used up to "
            f"{d.foreign:.0%} of the CPUs and the hypervisor stole up to {d.steal:.0%}")


def diagnostic_text(d: Diagnostic) -> str:
    """'noisy point: CPU fp32 batch 1 2 streams x 2 requests: throughput varied 17% (CV) across windows (what to
    do)'."""
    return f"{d.kind.value}: {diagnostic_subject(d)}: {diagnostic_detail(d)} ({HINTS[d.kind]})"
