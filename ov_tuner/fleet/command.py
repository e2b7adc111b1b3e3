"""Any workload's command on every target host, from the driver (`ov-tuner fleet WORKLOAD ...`): one keeper and one
task per host (ov_tuner.fleet.command_node), placed as ov_tuner.fleet.schedule says; each host's results file kept as
OUT_DIR/<host>.db, its command's lines relayed as they come."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ov_tuner.errors import Given, Input
from ov_tuner.fleet.cluster import Target
from ov_tuner.fleet.command_node import CommandOutcome, FileKeeper, command_here
from ov_tuner.fleet.schedule import on_every_target, pinned
from ov_tuner.store.connection import Connection
from ov_tuner.store.destinations import output_folder


@dataclass(frozen=True)
class CommandHost:
    """How the command ended on one host: its results file (None where none came back) or the line that says why
    not."""

    target: Target
    path: Path | None
    problem: str | None


def run_command_fleet(workload: str, args: Sequence[str], chosen: list[Target], out_dir: Path,
                      said: Callable[[Target, str], None]) -> tuple[list[CommandHost], bool]:
    """`ov-tuner WORKLOAD ARGS` on every target (ov_tuner.fleet.connect.connected gives them), each host's results file
    kept as out_dir/<stem>.db; `said`: each line a host's command prints. The hosts as they ended, and whether
    Ctrl-C stopped them."""
    output_folder(out_dir, Given(Input.HOSTS_FOLDER))
    for target in chosen:  # each file is writable and an ov-tuner results file, before any host starts
        path = out_dir / f"{target.stem}.db"
        rerun = path.is_file()  # a rerun's: the host's command resumes it
        Connection(path).close()
        if not rerun:
            path.unlink()  # none until the host's command writes one
    here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
    keepers: dict[str, Any] = {t.node_id: ray.remote(num_cpus=0)(FileKeeper).options(scheduling_strategy=here)
                               .remote(out_dir / f"{t.stem}.db", t.node_name or t.hostname) for t in chosen}
    task = ray.remote(command_here)
    hosts: list[CommandHost] = []

    def relay() -> None:
        for target, lines in zip(chosen, ray.get([keepers[t.node_id].drain.remote() for t in chosen]), strict=True):
            for line in lines:
                said(target, line)

    def end(target: Target, outcome: CommandOutcome | None, problem: str | None) -> None:
        path = out_dir / f"{target.stem}.db"
        if outcome is not None and outcome.returncode != 0:
            problem = outcome.said or f"its command ended with exit status {outcome.returncode}"
        hosts.append(CommandHost(target, path if path.is_file() else None, problem))

    interrupted = on_every_target(chosen, lambda t: pinned(task, t).remote(workload, list(args), keepers[t.node_id]),
                                  end, relay, workload)
    relay()
    return hosts, interrupted
