"""Words for how far the figures can be trusted: the diagnostics, each with what to do about it, and how the
measurements ended."""

from __future__ import annotations

from ov_tuner.analyse.diagnostics import Diagnostic, DiagnosticKind, HowMeasured
from ov_tuner.schema import Ending, Precision

HINTS = {
    DiagnosticKind.FAILED: "the error is stored with the point; rerun the sweep to retry failed points",
    DiagnosticKind.PRECISION: "compare precisions by what ran, not by their names",
    DiagnosticKind.STREAMS: "the device changed NUM_STREAMS; read the cell as the read-back stream count",
    DiagnosticKind.IDLE_STREAMS: "some streams sit idle; use nireq >= streams for throughput",
    DiagnosticKind.NOISY: "the machine was busy or the window short; rerun with a longer --time",
    DiagnosticKind.UNSTABLE: "its FPS averages a drifting run; rerun on a quieter machine or raise --max-time",
    DiagnosticKind.CLIENT_BOUND: "the Python loop, not the device, limits this point; its FPS understates the device",
    DiagnosticKind.FLAT_STEP: "the Python loop, not the device, limits these points; their FPS understates the device",
    DiagnosticKind.DISTURBED: "those windows are set aside where others are clean; rerun it on a quieter host",
    DiagnosticKind.AUTO_BATCHED: "OpenVINO batched requests itself: its figures are not those of the streams and "
                                 "requests it names; sweep with --set ALLOW_AUTO_BATCHING=NO",
}

ENDINGS = {
    Ending.SETTLED: "settled (the last windows agreed)",
    Ending.CAPPED: "reached --max-time without settling",
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
    if d.kind is DiagnosticKind.PRECISION:
        return f"{d.config.device} {d.config.precision.value}"
    return d.config.label()


def diagnostic_detail(d: Diagnostic) -> str:
    """What is off, with its figures."""
    f = d.figures
    if d.kind is DiagnosticKind.FAILED:
        return str(f["error"])
    if d.kind is DiagnosticKind.PRECISION:
        precision = f["precision"]
        assert isinstance(precision, Precision)
        if f["asked"] != precision.hint:
            capability = precision.hint.upper().replace("F", "FP")
            return (f"{precision.value} means the {precision.hint} hint, but {f['device']} lists no {capability} "
                    f"capability, so ov-tuner asked for {f['asked']}: it ran {f['ran']}")
        return f"asked for {f['asked']}; the device reports {f['reported']} and ran {f['ran']}"
    if d.kind is DiagnosticKind.AUTO_BATCHED:
        return f"an explicit configuration read back AUTO_BATCH_TIMEOUT {f['timeout']} ms"
    if d.kind is DiagnosticKind.STREAMS:
        return f"asked {f['asked']} streams, device runs {f['ran']}"
    if d.kind is DiagnosticKind.IDLE_STREAMS:
        return f"{f['requests']} requests for {f['streams']} streams"
    if d.kind is DiagnosticKind.NOISY:
        return f"throughput varied {f['cv']:.0%} (CV) across windows"
    if d.kind is DiagnosticKind.UNSTABLE:
        return f"{f['windows']} windows in {f['seconds']:.1f} s never agreed within the tolerance"
    if d.kind is DiagnosticKind.CLIENT_BOUND:
        return f"the Python loop was busy {f['share']:.0%} of the time"
    if d.kind is DiagnosticKind.FLAT_STEP:
        return (f"from {f['from']} to {f['to']} requests FPS {f['fps_gain']:+.0%} and median latency "
                f"{f['latency_rise']:+.0%}: the extra requests were not served in parallel")
    return (f"{f['disturbed']} of {f['windows']} windows were measured while other processes used up to "
            f"{f['foreign']:.0%} of the CPUs and the hypervisor stole up to {f['steal']:.0%}")


def diagnostic_text(d: Diagnostic) -> str:
    """'noisy point: CPU fp32 batch 1 2 streams x 2 requests: throughput varied 17% (CV) across windows (what to
    do)'."""
    return f"{d.kind.value}: {diagnostic_subject(d)}: {diagnostic_detail(d)} ({HINTS[d.kind]})"
