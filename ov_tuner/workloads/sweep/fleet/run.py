"""The fleet sweep from the driver, on the targets fleet.connect found: start one keeper and one task per host, relay
progress, and end every host with its summary or the one line that stopped it.

Measurement truth comes first: each task is placed as ov_tuner.fleet.schedule says, alone on its node.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ov_tuner.devices.modelfile import open_model_source
from ov_tuner.errors import Given, Input
from ov_tuner.fleet.bundle import pack
from ov_tuner.fleet.cluster import Target
from ov_tuner.fleet.schedule import on_every_target, pinned
from ov_tuner.model.inputs import load_images
from ov_tuner.schema import SweepSpec
from ov_tuner.store.destinations import output_folder
from ov_tuner.store.results import ResultStore
from ov_tuner.workloads.sweep.fleet.keeper import Keeper
from ov_tuner.workloads.sweep.fleet.node import NodeOutcome, sweep_here
from ov_tuner.workloads.sweep.job import SweepSummary


@dataclass(frozen=True)
class HostOutcome:
    """How one host's sweep ended: its summary, or the one line that says why not, and what its file holds."""

    target: Target
    path: Path
    stored_points: int
    summary: SweepSummary | None
    problem: str | None


@dataclass(frozen=True)
class FleetSummary:
    hosts: list[HostOutcome]
    interrupted: bool


class FleetProgress(Protocol):
    """What a front end is told: the targets once, then each host's sweep progress and its end."""

    def targets(self, chosen: list[Target]) -> None: ...

    def event(self, target: Target, name: str, args: tuple[Any, ...]) -> None: ...

    def ended(self, outcome: HostOutcome) -> None: ...


def run_fleet(spec: SweepSpec, chosen: list[Target], out_dir: Path, progress: FleetProgress) -> FleetSummary:
    """Sweep `spec` on every target (connected() gives them), each host's points written to out_dir/<stem>.db
    as they arrive. Ctrl-C (or SIGTERM) cancels every task and keeps what arrived."""
    output_folder(out_dir, Given(Input.HOSTS_FOLDER))
    source = open_model_source(spec.model)  # bad input is refused here, before any host starts
    if spec.images is not None:
        load_images(spec.images)
    for target in chosen:  # each file is writable and an ov-tuner results file, before any host starts
        ResultStore(out_dir / f"{target.stem}.db").close()
    bundle = ray.put(pack(spec.model, spec.images))
    here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
    keepers: dict[str, Any] = {t.node_id: ray.remote(num_cpus=0)(Keeper).options(scheduling_strategy=here)
               .remote(out_dir / f"{t.stem}.db", str(source.path), t.node_name or t.hostname) for t in chosen}
    task = ray.remote(sweep_here)
    progress.targets(chosen)
    outcomes: list[HostOutcome] = []

    def end(target: Target, outcome: NodeOutcome | None, problem: str | None) -> None:
        keeper = keepers[target.node_id]
        stored = ray.get(keeper.stored_points.remote())
        ray.get(keeper.close.remote())
        summary = outcome.summary if outcome else None
        host = HostOutcome(target, out_dir / f"{target.stem}.db", stored, summary,
                           problem or (outcome.problem if outcome else None))
        progress.ended(host)
        outcomes.append(host)

    interrupted = on_every_target(chosen, lambda t: pinned(task, t).remote(spec, bundle, keepers[t.node_id]), end,
                                  lambda: _relay(keepers, chosen, progress), "sweep")
    return FleetSummary(outcomes, interrupted)


def _relay(keepers: dict[str, Any], chosen: list[Target], progress: FleetProgress) -> None:
    """Hand every host's progress events since the last call to the front end."""
    for target, events in zip(chosen, ray.get([keepers[t.node_id].drain.remote() for t in chosen]), strict=True):
        for name, args in events:
            progress.event(target, name, args)
