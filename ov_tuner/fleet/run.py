"""The fleet sweep from the driver: connect, find the targets, start one keeper and one task per host, relay
progress, and end every host with its summary or the one line that stopped it.

Measurement truth comes first: a task asks for the whole `ov_tuner_host` resource of its node and is pinned
there, and nodes that share a machine are swept one after the other.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ov_tuner.devices.modelfile import open_model_source
from ov_tuner.errors import BadInputError, Given, Input
from ov_tuner.fleet.bundle import pack
from ov_tuner.fleet.cluster import HEAD_HINT, JOIN_HINT, RESOURCE, Target, by_machine, targets
from ov_tuner.fleet.keeper import Keeper
from ov_tuner.fleet.node import NodeOutcome, sweep_here
from ov_tuner.model.inputs import load_images
from ov_tuner.schema import SweepSpec
from ov_tuner.store.destinations import output_folder
from ov_tuner.store.results import ResultStore
from ov_tuner.workloads.sweep.job import SweepSummary

POLL_S = 0.25  # how often the driver relays progress and looks for ended hosts


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


@contextmanager
def connected(address: str) -> Iterator[list[Target]]:
    """Join the cluster at `address` (`auto`: the one this machine belongs to) and list its targets."""
    try:
        ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise BadInputError(f"{Input.ADDRESS} {address}: no Ray cluster there ({str(e).splitlines()[0]}); start one "
                            f"with `{HEAD_HINT}` or give the head's address "
                            "(host:6379)") from e
    try:
        chosen = targets(ray.nodes())
        if not chosen:
            raise BadInputError(f"the Ray cluster at {address} has no node offering the resource {RESOURCE}; join "
                                f"each target host with `{JOIN_HINT}`")
        yield chosen
    finally:
        ray.shutdown()


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
    queues = by_machine(chosen)
    running: dict[ray.ObjectRef, Target] = {}
    outcomes: list[HostOutcome] = []

    def start_next(machine: str) -> None:
        if queues[machine]:
            target = queues[machine].pop(0)
            pinned = NodeAffinitySchedulingStrategy(target.node_id, soft=False)
            ref = task.options(resources={RESOURCE: 1}, num_cpus=0, max_retries=0, scheduling_strategy=pinned)
            running[ref.remote(spec, bundle, keepers[target.node_id])] = target

    def end(target: Target, outcome: NodeOutcome | None, problem: str | None) -> None:
        keeper = keepers[target.node_id]
        stored = ray.get(keeper.stored_points.remote())
        ray.get(keeper.close.remote())
        summary = outcome.summary if outcome else None
        host = HostOutcome(target, out_dir / f"{target.stem}.db", stored, summary,
                           problem or (outcome.problem if outcome else None))
        progress.ended(host)
        outcomes.append(host)

    try:
        for machine in queues:
            start_next(machine)
        while running:
            ready, _ = ray.wait(list(running), num_returns=1, timeout=POLL_S)
            _relay(keepers, chosen, progress)
            for ref in ready:
                target = running.pop(ref)
                end(target, *_outcome(ref))
                start_next(target.machine)
    except (KeyboardInterrupt, SystemExit):  # Ctrl-C; SystemExit is how Ray's driver takes a SIGTERM
        for ref in running:
            ray.cancel(ref, force=True)
        _relay(keepers, chosen, progress)
        for target in running.values():
            end(target, None, "interrupted: its sweep was cancelled; what arrived is kept")
        for target in (t for queue in queues.values() for t in queue):
            end(target, None, "interrupted before its sweep started")
        return FleetSummary(outcomes, interrupted=True)
    return FleetSummary(outcomes, interrupted=False)


def _relay(keepers: dict[str, Any], chosen: list[Target], progress: FleetProgress) -> None:
    """Hand every host's progress events since the last call to the front end."""
    for target, events in zip(chosen, ray.get([keepers[t.node_id].drain.remote() for t in chosen]), strict=True):
        for name, args in events:
            progress.event(target, name, args)


def _outcome(ref: ray.ObjectRef) -> tuple[NodeOutcome | None, str | None]:
    """The task's outcome, or why there is none: the node or its worker died, or ov-tuner failed there."""
    try:
        return ray.get(ref), None
    except ray.exceptions.RayTaskError as e:
        return None, f"the sweep failed there: {str(e.cause).splitlines()[0] if e.cause else e}"
    except ray.exceptions.RayError as e:  # the node or its worker process is gone
        return None, f"the node stopped mid-sweep ({type(e).__name__})"
