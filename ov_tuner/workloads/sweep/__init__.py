"""The sweep: model -> compile -> measure -> store, driven by the search policy, point after point.

`run_sweep` loads the engine (OpenVINO, numpy) on first use (PEP 562): the words and the command line import this
package's records, its notices and its summary, and `ov-tuner --help` goes without the engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ov_tuner.workloads.sweep.progress import SweepProgress
from ov_tuner.workloads.sweep.summary import SweepSummary

if TYPE_CHECKING:
    from ov_tuner.workloads.sweep.job import run_sweep

__all__ = ["SweepProgress", "SweepSummary", "run_sweep"]


def __getattr__(name: str) -> object:
    if name == "run_sweep":
        from ov_tuner.workloads.sweep.job import run_sweep

        return run_sweep
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
