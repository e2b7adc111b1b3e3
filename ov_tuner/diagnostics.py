"""Warnings about stored results, as data: each says what is off and what to do about it.

Only the CLI and the report render them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ov_tuner.schema import Mode, PointResult

# A point whose slice-to-slice throughput varies more than this (coefficient of variation) is noisy.
NOISY_FPS_CV = 0.10


class DiagnosticKind(str, Enum):
    FAILED = "failed point"
    PRECISION = "precision differs from request"
    STREAMS = "streams differ from request"
    IDLE_STREAMS = "fewer requests than streams"
    NOISY = "noisy point"


_HINTS = {
    DiagnosticKind.FAILED: "the error is stored with the point; rerun the sweep to retry failed points",
    DiagnosticKind.PRECISION: "the device ran another precision than asked; compare precisions by what executed",
    DiagnosticKind.STREAMS: "the device changed NUM_STREAMS; read the cell as the read-back stream count",
    DiagnosticKind.IDLE_STREAMS: "some streams sit idle; use nireq >= streams for throughput",
    DiagnosticKind.NOISY: "the machine was busy or the window short; rerun with a longer --time",
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


def diagnostics(points: list[PointResult]) -> list[Diagnostic]:
    """Everything a reader of these results should know before trusting a number."""
    found: list[Diagnostic] = []
    seen_compiles: set[object] = set()
    for p in points:
        label = p.config.label()
        if not p.ok:
            found.append(Diagnostic(DiagnosticKind.FAILED, label, p.error or "no message"))
            continue
        c = p.compile
        if c is not None and c.key not in seen_compiles:
            seen_compiles.add(c.key)
            asked = c.requested.get("INFERENCE_PRECISION_HINT", "")
            ran = {c.inference_precision, c.executed_precision} - {"unknown"}
            if asked != p.config.precision.hint or ran != {asked}:
                found.append(Diagnostic(
                    DiagnosticKind.PRECISION, label,
                    f"{p.config.precision.value} means hint {p.config.precision.hint}; requested {asked}, "
                    f"device reports {c.inference_precision}, compute layers ran {c.executed_precision}",
                ))
            if c.key.mode is Mode.GRID and c.num_streams != c.key.streams:
                found.append(Diagnostic(DiagnosticKind.STREAMS, label,
                                        f"asked {c.key.streams} streams, device runs {c.num_streams}"))
        if p.nireq < p.streams:
            found.append(Diagnostic(DiagnosticKind.IDLE_STREAMS, label, f"{p.nireq} requests for {p.streams} streams"))
        cv = p.measurement.fps_cv if p.measurement else None
        if cv is not None and cv > NOISY_FPS_CV:
            found.append(Diagnostic(DiagnosticKind.NOISY, label, f"throughput varied {cv:.0%} (CV) across the window"))
    return found
