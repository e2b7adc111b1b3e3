"""The sweep: model -> compile -> measure -> store, driven by the search policy, point after point."""

from ov_tuner.sweep.progress import SweepProgress
from ov_tuner.sweep.run import run_sweep
from ov_tuner.sweep.summary import SweepSummary

__all__ = ["SweepProgress", "SweepSummary", "run_sweep"]
