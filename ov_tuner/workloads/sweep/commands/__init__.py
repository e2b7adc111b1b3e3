"""The sweep's commands and its parts': each module adds its own to the one app (ov_tuner.commandline.app) as it is
imported, in the order `--help` lists them."""
# isort: skip_file

from ov_tuner.workloads.sweep.commands import sweep, quantize, edge, neighbours, diagnose, fleet

__all__ = ["diagnose", "edge", "fleet", "neighbours", "quantize", "sweep"]
