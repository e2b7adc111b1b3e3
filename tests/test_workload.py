"""The one driver (ov_tuner.engine.driver) on a constructed workload: the phases in order, the stop between
steps, and every phase's cleanup run however it ends."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ov_tuner.engine.driver import Rounds, Steps, drive
from ov_tuner.engine.rounds import RoundLimits
from ov_tuner.schema import CameraTarget, PointConfig, Precision
from ov_tuner.store.results import load_results
from ov_tuner.workloads.sweep.capacity.job import run_capacity
from ov_tuner.workloads.sweep.capacity.workload import CapacitySpec


@dataclass
class Recorded:
    """A workload that records what the driver asks of it, and sets `stop` after `stop_after` events."""

    search_steps: int = 3
    walk_steps: int = 2
    stop_after: int | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    events: list[str] = field(default_factory=list)

    def _event(self, name: str) -> None:
        self.events.append(name)
        if self.stop_after is not None and len(self.events) >= self.stop_after:
            self.stop.set()

    def search(self) -> Steps:
        try:
            for i in range(self.search_steps):
                self._event(f"search {i}")
                yield i
        finally:
            self.events.append("search closed")

    @contextmanager
    def rounds(self) -> Iterator[Rounds | None]:
        self.events.append("rounds open")

        def visit(position: int, number: int) -> float:
            self._event(f"visit {number}:{position}")
            return 100.0 + position

        try:
            yield Rounds(visit, [True, True], RoundLimits(2, 2))
        finally:
            self.events.append("rounds closed")

    def walks(self) -> Steps:
        for i in range(self.walk_steps):
            self._event(f"walk {i}")
            yield i


def test_the_phases_run_in_order_and_the_rounds_alternate() -> None:
    workload = Recorded()
    driven = drive(workload, workload.stop)
    assert workload.events == ["search 0", "search 1", "search 2", "search closed", "rounds open",
                               "visit 0:0", "visit 0:1", "visit 1:1", "visit 1:0", "rounds closed", "walk 0", "walk 1"]
    assert driven.figures is not None and driven.figures.tolist() == [[100.0, 101.0], [100.0, 101.0]]
    assert not driven.stopped


def test_a_stop_in_the_search_ends_it_after_the_step_in_progress_and_closes_it() -> None:
    workload = Recorded(stop_after=2)
    driven = drive(workload, workload.stop)
    assert workload.events == ["search 0", "search 1", "search closed"]
    assert driven.stopped and driven.figures is None


def test_a_stop_in_the_rounds_closes_them_and_walks_nothing() -> None:
    workload = Recorded(stop_after=7)  # three search steps, its close, the rounds' open, then two visits
    driven = drive(workload, workload.stop)
    assert workload.events[-3:] == ["visit 0:0", "visit 0:1", "rounds closed"]
    assert not any(e.startswith("walk") for e in workload.events)
    assert driven.stopped


def test_an_error_in_a_phase_still_closes_it() -> None:
    workload = Recorded()

    def failing() -> Steps:
        try:
            yield 0
            raise ValueError("the second step fails")
        finally:
            workload.events.append("closed")

    workload.search = failing  # type: ignore[method-assign]
    with pytest.raises(ValueError):
        drive(workload)
    assert workload.events == ["closed"]


def test_a_stop_ends_capacity_after_the_trial_in_progress_and_keeps_it(tiny_model: Path, tmp_path: Path) -> None:
    """Capacity on the real runtime: the stop asked for during the first camera search's first trial ends the job
    there; that trial is stored and returned, and the second configuration never starts."""
    stop = threading.Event()
    configs = tuple(PointConfig("CPU", Precision.FP32, 1, 1, nireq) for nireq in (1, 2))
    spec = CapacitySpec(tiny_model, tmp_path / "r.db", configs, CameraTarget(fps=10.0, max_latency_ms=100.0),
                        seconds=0.3, lead_in_s=0.1)
    capacities = run_capacity(spec, on_trial=lambda config, trial: stop.set(), stop=stop)
    assert [(c.config.nireq, len(c.trials)) for c in capacities] == [(1, 1)]
    assert [(r.config.nireq, len(r.trials)) for r in load_results(spec.out).capacities] == [(1, 1)]
