"""The ov-tuner command line: parse flags, build a spec, make one library call, render the result.

Each module holds one family of commands, registered on the one Typer app in the order `--help` lists them; a workload
installed as a plug-in (ov_tuner.registry) adds its own.
"""
# isort: skip_file

from ov_tuner.commandline.app import app
from ov_tuner.cli import sweep, quantize, fleet, results, edge, pipeline, llm, neighbours, diagnose, inventory
from ov_tuner.commandline.app import err
from ov_tuner.registry import registry, registry_problems

for _registration in registry().values():  # an installed workload's own commands, after ov-tuner's
    if _registration.commands is not None:
        _registration.commands(app)
for _problem in registry_problems():
    err.print(f"warning: {_problem}", highlight=False, markup=False, soft_wrap=True)

__all__ = ["app", "diagnose", "edge", "fleet", "inventory", "llm", "neighbours", "pipeline", "quantize", "results",
           "sweep"]
