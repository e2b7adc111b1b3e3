"""The ov-tuner command line: parse flags, build a spec, make one library call, render the result.

Each module holds one family of commands, registered on the one Typer app in the order `--help` lists them.
"""
# isort: skip_file

from ov_tuner.cli.app import app
from ov_tuner.cli import sweep, quantize, fleet, results, edge, pipeline, llm, neighbours, diagnose, inventory

__all__ = ["app", "diagnose", "edge", "fleet", "inventory", "llm", "neighbours", "pipeline", "quantize", "results",
           "sweep"]
