"""One host's results file, kept on the driver's machine by a Ray actor, and the node-side stand-ins for it.

The node runs the ordinary sweep; every write its ResultStore would make is a call on the keeper, which makes
it with the ordinary ResultStore before the node goes on: a point is on the driver's disk before the next one
starts, so a node that dies loses nothing it had measured. Progress goes the other way only: the node tells
the keeper, the driver asks the keeper.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import ray

from ov_tuner.schema import Environment, PointConfig, PointResult
from ov_tuner.store.results import ResultStore
from ov_tuner.workloads.sweep.notices import Notice


class Keeper:
    """The results file of one host (run as a Ray actor on the driver's machine) and what its sweep reported."""

    def __init__(self, path: Path, model_path: str, node: str) -> None:
        self._store = ResultStore(path)
        self._model_path = model_path
        self._node = node
        self._events: list[tuple[str, tuple[Any, ...]]] = []

    def call(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """One ResultStore method. The environment is the node's, with the user's model path (the node read a
        copy) and the node's name, so the file says where it was measured."""
        if method == "claim":
            env: Environment = args[0]
            args = (replace(env, model_path=self._model_path, node=self._node), *args[1:])
        return getattr(self._store, method)(*args, **kwargs)

    def report(self, event: str, args: tuple[Any, ...]) -> None:
        self._events.append((event, args))

    def drain(self) -> list[tuple[str, tuple[Any, ...]]]:
        """The progress events reported since the last drain, oldest first."""
        events, self._events = self._events, []
        return events

    def stored_points(self) -> int:
        return self._store.point_count()

    def close(self) -> None:
        self._store.close()


class RemoteStore:
    """On the node, in place of a ResultStore: each method call is made by the keeper, and waited for."""

    def __init__(self, keeper: ray.actor.ActorHandle) -> None:
        self._keeper = keeper

    def __getattr__(self, method: str) -> Any:
        def remote_call(*args: Any, **kwargs: Any) -> Any:
            return ray.get(self._keeper.call.remote(method, args, kwargs))
        return remote_call


class RemoteProgress:
    """On the node, the sweep's progress (ov_tuner.workloads.sweep.progress.SweepProgress), told to the keeper without
    waiting: progress must never slow a measurement."""

    def __init__(self, keeper: ray.actor.ActorHandle) -> None:
        self._keeper = keeper

    def planned(self, to_measure: int, already_measured: int) -> None:
        self._keeper.report.remote("planned", (to_measure, already_measured))

    def note(self, notice: Notice) -> None:
        self._keeper.report.remote("note", (notice,))

    def starting(self, config: PointConfig) -> None:
        self._keeper.report.remote("starting", (config,))

    def finished(self, point: PointResult) -> None:
        self._keeper.report.remote("finished", (point,))

    def dropped(self, count: int) -> None:
        self._keeper.report.remote("dropped", (count,))
