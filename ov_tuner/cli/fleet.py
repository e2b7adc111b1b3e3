"""`ov-tuner fleet NAME ARGS`: any workload's command that runs on a fleet, on every target host of a Ray cluster (a
workload may add a fleet command of its own, as the sweep's `fleet sweep`). Ray is imported only when a command
runs."""

from __future__ import annotations

from pathlib import Path

import typer

from ov_tuner.commandline.app import (
    EXIT_INTERRUPTED,
    ctrl_c_interrupts,
    err,
    one_line_errors,
    out,
)
from ov_tuner.commandline.fleet import EXIT_HOSTS_STOPPED, INSTALL_HINT, Address, OutDir, fleet_app
from ov_tuner.errors import BadInputError
from ov_tuner.registry import Asked, Registration, registry


def add_fleet_command(registration: Registration) -> None:
    """`ov-tuner fleet NAME ARGS`: the workload's own command with ARGS on every host of a Ray cluster
    (ov_tuner.fleet.command), then the hosts' files compared as `compare` does (each one's answer, where the
    workload compares none)."""
    name = registration.name

    @fleet_app.command(name=name, context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
                       short_help=f"`ov-tuner {name} ARGS` on every host of a Ray cluster.",
                       help=f"Run `ov-tuner {name} ARGS` on every Ray node that offers the resource ov_tuner_host, "
                            "one host at a time per machine, reading its input files at the paths given on every "
                            "host; each host's results file is kept here, OUT_DIR/<host>.db, as it grows. Then the "
                            "hosts side by side.")
    @one_line_errors
    def fleet_workload(context: typer.Context, address: Address = "auto", out_dir: OutDir = Path("fleet")) -> None:
        if "--out" in context.args or any(a.startswith("--out=") for a in context.args):
            raise BadInputError(f"fleet {name} writes each host's results to --out-dir as <host>.db: leave out --out")
        try:
            from ov_tuner.fleet.command import run_command_fleet
            from ov_tuner.fleet.connect import connected
        except ModuleNotFoundError as e:
            if e.name != "ray":
                raise
            raise BadInputError(INSTALL_HINT) from None

        with ctrl_c_interrupts(), connected(address) as chosen:
            hosts, interrupted = run_command_fleet(name, context.args, chosen, out_dir,
                                                   lambda t, line: out.print(f"{t.stem}: {line}", highlight=False,
                                                                             markup=False, soft_wrap=True))
        files = [h.path for h in hosts if h.path is not None]
        if len(files) > 1 and registration.compare is not None:
            registration.compare(out, files, False, None, "png")
        else:
            for path in files:
                registration.words(out, registration.answer(path, Asked()))
        for h in hosts:
            state = f"stopped: {h.problem}" if h.problem else "done"
            out.print(f"{h.target.stem} ({h.target.node_name or h.target.hostname}): {state}; results in "
                      f"{h.path or 'none'}", highlight=False)
        if interrupted:
            err.print(f"interrupted: what arrived is kept in {out_dir}; run the same command to resume")
            raise typer.Exit(EXIT_INTERRUPTED)
        if any(h.problem for h in hosts):
            raise typer.Exit(EXIT_HOSTS_STOPPED)


for _registration in registry().values():
    if _registration.fleet:
        add_fleet_command(_registration)
