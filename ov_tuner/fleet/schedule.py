"""How a fleet's tasks are placed and waited for, whatever they run: one task per target, pinned to its node and
holding the node's whole `ov_tuner_host` resource; nodes that share a machine one after the other, machines side by
side; progress relayed while they run; Ctrl-C (or SIGTERM) cancels every task and ends each host with a line saying
so."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ov_tuner.fleet.cluster import RESOURCE, Target, by_machine

POLL_S = 0.25  # how often the driver relays progress and looks for ended hosts

# Starts a target's task (the remote function, the arguments after the target's own) and returns its reference.
Launch = Callable[[Target], ray.ObjectRef]
# Ends a target: the task's result, or None and the one line that says why there is none.
Finish = Callable[[Target, Any, "str | None"], None]


def on_every_target(chosen: list[Target], launch: Launch, finish: Finish, relay: Callable[[], None],
                    what: str) -> bool:
    """Run `launch`'s task on every target as the module says, `finish` each as it ends (its result, or why there is
    none: `what` failed there, its node stopped), `relay` between waits. True where Ctrl-C stopped it."""
    queues = by_machine(chosen)
    running: dict[ray.ObjectRef, Target] = {}

    def start_next(machine: str) -> None:
        if queues[machine]:
            target = queues[machine].pop(0)
            running[launch(target)] = target

    try:
        for machine in queues:
            start_next(machine)
        while running:
            ready, _ = ray.wait(list(running), num_returns=1, timeout=POLL_S)
            relay()
            for ref in ready:
                target = running.pop(ref)
                finish(target, *_outcome(ref, what))
                start_next(target.machine)
    except (KeyboardInterrupt, SystemExit):  # Ctrl-C; SystemExit is how Ray's driver takes a SIGTERM
        for ref in running:
            ray.cancel(ref, force=True)
        relay()
        for target in running.values():
            finish(target, None, f"interrupted: its {what} was cancelled; what arrived is kept")
        for target in (t for queue in queues.values() for t in queue):
            finish(target, None, f"interrupted before its {what} started")
        return True
    return False


def pinned(task: Any, target: Target) -> Any:
    """`task` (a remote function) placed on the target's node alone, holding its whole RESOURCE, never retried."""
    return task.options(resources={RESOURCE: 1}, num_cpus=0, max_retries=0,
                        scheduling_strategy=NodeAffinitySchedulingStrategy(target.node_id, soft=False))


def _outcome(ref: ray.ObjectRef, what: str) -> tuple[Any, str | None]:
    """The task's result, or why there is none: the node or its worker died, or ov-tuner failed there."""
    try:
        return ray.get(ref), None
    except ray.exceptions.RayTaskError as e:
        return None, f"the {what} failed there: {str(e.cause).splitlines()[0] if e.cause else e}"
    except ray.exceptions.RayError as e:  # the node or its worker process is gone
        return None, f"the node stopped mid-{what} ({type(e).__name__})"
