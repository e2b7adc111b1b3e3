"""`ov-tuner fleet sweep`: the sweep's own flags, run on every target host of a Ray cluster, one bar per host and
one table at the end. Ray is imported only when the command runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from ov_tuner.commandline.app import (
    EXIT_INTERRUPTED,
    ctrl_c_interrupts,
    err,
    one_line_errors,
    out,
    with_options_of,
)
from ov_tuner.commandline.fleet import EXIT_HOSTS_STOPPED, INSTALL_HINT, Address, OutDir, fleet_app
from ov_tuner.commandline.renamed import renamed_flags
from ov_tuner.errors import BadInputError
from ov_tuner.present.terminal import print_blocks
from ov_tuner.schema import SweepSpec
from ov_tuner.workloads.sweep.commands.sweep import SWEEP_RENAMED, ProgressBar, progress_columns, sweep_spec

if TYPE_CHECKING:
    from rich.progress import Progress

    from ov_tuner.fleet.cluster import Target
    from ov_tuner.workloads.sweep.fleet.run import HostOutcome

renamed_flags("fleet sweep", SWEEP_RENAMED)


class FleetBars:
    """One progress bar per host, fed with the events each host's sweep reports."""

    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._bars: dict[str, ProgressBar] = {}

    def targets(self, chosen: list[Target]) -> None:
        for target in chosen:
            self._bars[target.node_id] = ProgressBar(self._progress, target.stem)

    def event(self, target: Target, name: str, args: tuple[Any, ...]) -> None:
        getattr(self._bars[target.node_id], name)(*args)

    def ended(self, outcome: HostOutcome) -> None:
        if outcome.problem:
            self._bars[outcome.target.node_id].say(f"[red]{outcome.problem}[/red]; {outcome.stored_points} points "
                                                    f"are in {outcome.path}", markup=True)


@fleet_app.command(name="sweep")
@one_line_errors
@with_options_of(sweep_spec, leave_out=("out_path",))
def fleet_sweep(
    spec: SweepSpec,
    address: Address = "auto",
    out_dir: OutDir = Path("fleet"),
) -> None:
    """Run the sweep once on every Ray node that offers the resource ov_tuner_host, one host at a time per machine;
    every point is written here, to OUT_DIR/<host>.db, as soon as it is measured."""
    try:
        from ov_tuner.fleet.connect import connected
        from ov_tuner.workloads.sweep.fleet.run import run_fleet
    except ModuleNotFoundError as e:
        if e.name != "ray":
            raise
        raise BadInputError(INSTALL_HINT) from None
    from rich.progress import Progress

    from ov_tuner.analyse.answer import answer_if_any
    from ov_tuner.analyse.points import best_per_device_precision
    from ov_tuner.store.results import load_results
    from ov_tuner.workloads.sweep.present.fleet_text import HostResults, fleet_table

    with (ctrl_c_interrupts(), connected(address) as chosen,
          Progress(*progress_columns(), console=err, transient=True) as progress):
        summary = run_fleet(spec, chosen, out_dir, FleetBars(progress))
    stored = [load_results(h.path) if h.stored_points else None for h in summary.hosts]
    hosts = [HostResults(h.target.stem, s, answer_if_any(s) if s else None, h.problem,
                         tuple(best_per_device_precision(s.points)) if s else ())
             for h, s in zip(summary.hosts, stored, strict=True)]
    print_blocks(out, fleet_table(hosts))
    for h in summary.hosts:
        state = f"stopped: {h.problem}" if h.problem else "done"
        out.print(f"{h.target.stem} ({h.target.node_name or h.target.hostname}): {state}; {h.stored_points} points "
                  f"in {h.path}", highlight=False)
    if summary.interrupted:
        err.print(f"interrupted: what arrived is kept in {out_dir}; run the same command to resume")
        raise typer.Exit(EXIT_INTERRUPTED)
    if any(h.problem for h in summary.hosts):
        raise typer.Exit(EXIT_HOSTS_STOPPED)
