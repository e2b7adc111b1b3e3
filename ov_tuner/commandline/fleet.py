"""The `fleet` group of commands, which each workload that runs on a fleet joins (`fleet NAME`), and the options and
exits they share."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ov_tuner.commandline.app import app
from ov_tuner.commandline.renamed import RenamedFlagsGroup

fleet_app = typer.Typer(no_args_is_help=True, cls=RenamedFlagsGroup,
                        help="Tune a fleet: the same workload on every host of a Ray cluster.")
app.add_typer(fleet_app, name="fleet")
EXIT_HOSTS_STOPPED = 1  # the table is printed, but some hosts did not finish: a script should know
INSTALL_HINT = 'fleets run on Ray, which is not installed: pip install "ov-tuner[fleet]" (on the driver and on ' \
               "every target host)"
Address = Annotated[str, typer.Option(help="The Ray cluster: the head's host:port, or auto (the cluster this machine "
                                      "belongs to).")]
OutDir = Annotated[Path, typer.Option(help="Folder for one results file per host, <host>.db; rerunning resumes each.")]
