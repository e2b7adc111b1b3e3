"""The ov-tuner command line: every installed workload's commands, added by its registration (ov-tuner's own as a
plug-in's: ov_tuner.registry), then the commands over results files, the fleet's and the host's, each module holding
one family of them on the one Typer app (ov_tuner.commandline.app), in the order `--help` lists them.
"""
# isort: skip_file

from ov_tuner.commandline.app import app, err
from ov_tuner.registry import registry, registry_problems

for _registration in registry().values():
    if _registration.commands is not None:
        _registration.commands(app)
for _problem in registry_problems():
    err.print(f"warning: {_problem}", highlight=False, markup=False, soft_wrap=True)

from ov_tuner.cli import results, fleet, inventory  # noqa: E402  (after the workloads: `fleet NAME` is each one's)

__all__ = ["app", "fleet", "inventory", "results"]
