"""One driver for every workload: its search, then its contenders side by side on the rounds engine, then its walks.

A workload says what one trial measures and owns its space, starting points, baselines and search policy; this
module owns the order of the phases and the stop: a workload hands out one trial per step (each stored by the
workload as it ends), and the driver asks for the next only while no stop is asked for, so Ctrl-C ends every
workload after the trial in progress, with what was measured kept. The rounds of every workload run on one function
(ov_tuner.engine.rounds.run_rounds), their intervals on one (ov_tuner.stats.interval.paired_interval).

Each workload's folder has its Workload (ov_tuner.workloads.NAME.workload), driven by its job (job.py).
Pure: it never imports OpenVINO.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Sequence
from contextlib import AbstractContextManager, closing, nullcontext
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ov_tuner.engine.rounds import Measure, RoundLimits, run_rounds

# A phase of a workload: each step one trial done (and stored) or one record stored.
Steps = Generator[object, None, None]


@dataclass(frozen=True)
class Rounds:
    """A workload's contenders for the rounds engine: `visit` measures one (its position) in a pass and returns its
    figure; `candidates` says which may lead; `done` holds the passes a resumed job stored; `log`: compare figures
    as ratios (FPS, tokens/s), else as differences."""

    visit: Measure
    candidates: Sequence[bool]
    limits: RoundLimits
    done: np.ndarray | None = None
    log: bool = True


class Workload(Protocol):
    """What the driver needs of a workload. A phase is a generator: each step one trial done and stored."""

    def search(self) -> Steps:
        """The search over the workload's space, from its starting points and baselines; a resumed job skips what
        is stored."""
        ...

    def rounds(self) -> AbstractContextManager[Rounds | None]:
        """The contenders side by side (None: no rounds), held open while they run (a compiled model, a process)."""
        ...

    def walks(self) -> Steps:
        """After the rounds: the walk to the most load each contender that matters serves (empty: none)."""
        ...


class WalksOnly:
    """A workload that only walks: no search and no rounds, its configuration given (the sweep's parts)."""

    def search(self) -> Steps:
        yield from ()

    def rounds(self) -> AbstractContextManager[Rounds | None]:
        return nullcontext(None)


@dataclass(frozen=True)
class Driven:
    """What the driver did: the seconds of each phase and the rounds' figures (passes x contenders; None: no
    rounds), and whether a stop ended it."""

    search_s: float
    rounds_s: float
    figures: np.ndarray | None
    stopped: bool


def drive(workload: Workload, stop: threading.Event | None = None) -> Driven:
    """Run the workload's phases in order until each is done or `stop` is set."""
    stopped = stop.is_set if stop is not None else (lambda: False)
    started = time.perf_counter()
    _steps(workload.search(), stopped)
    search_s, figures = time.perf_counter() - started, None
    if not stopped():
        with workload.rounds() as rounds:
            if rounds is not None:
                figures = run_rounds(rounds.visit, rounds.candidates, rounds.limits, rounds.done, stop, rounds.log)
    rounds_s = time.perf_counter() - started - search_s
    if not stopped():
        _steps(workload.walks(), stopped)
    return Driven(search_s, rounds_s, figures, stopped())


def _steps(steps: Steps, stopped: Callable[[], bool]) -> None:
    """Take steps while no stop is asked for; the steps are closed either way, so a stopped workload's cleanup
    (a compiled model, a process) runs now."""
    with closing(steps):
        for _ in steps:
            if stopped():
                return
