"""One driver for every workload: its search, then its contenders side by side on the rounds engine, then its walks.

A workload says what one trial measures and owns its space, starting points, baselines and search policy; this
module owns the order of the phases and the stop: a workload hands out one trial per step (each stored by the
workload as it ends), and the driver asks for the next only while no stop is asked for, so Ctrl-C ends every
workload after the trial in progress, with what was measured kept. The rounds of every workload run on one function
(ov_tuner.engine.rounds.run_rounds), their intervals on one (ov_tuner.stats.interval.paired_interval).

A time budget is kept here too, for every workload alike: a step starts only where, at what the phase's steps have
cost, it fits beside the fewest trials the later phases need (ov_tuner.engine.budget). A workload that says its phases'
trials (`Plans`) gets a plan, made once its first trial has calibrated it and told to a `Watch` with each step.

Each workload's folder has its Workload (ov_tuner.workloads.NAME.workload), driven by its job (job.py).
Pure: it never imports OpenVINO.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Sequence
from contextlib import AbstractContextManager, closing, nullcontext
from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

import numpy as np

from ov_tuner.engine.budget import PhasePlan, Plan, PlannedPhase, TimeBudget, plan
from ov_tuner.engine.rounds import Measure, RoundLimits, run_rounds, still_open

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


@runtime_checkable
class Plans(Protocol):
    """A workload that can say, at any moment, the trials its phases have left (search, rounds' visits, walks' steps),
    from what it has stored: the driver then shares a time budget by them and tells the plan."""

    def planned(self) -> tuple[PhasePlan, PhasePlan, PhasePlan]: ...


class Watch(Protocol):
    """What a front end is told of the run's time: the plan (after the calibration trial, and again as each phase
    starts) and each step done. The library never prints."""

    def planned(self, plan: Plan) -> None: ...

    def stepped(self, phase: str, done: int, plan: Plan, spent_s: float) -> None: ...

    def ended(self, driven: Driven) -> None: ...


class Unwatched:
    """A watch that goes nowhere: the library's default."""

    def planned(self, plan: Plan) -> None:
        pass

    def stepped(self, phase: str, done: int, plan: Plan, spent_s: float) -> None:
        pass

    def ended(self, driven: Driven) -> None:
        pass


@dataclass(frozen=True)
class Undecided:
    """What the rounds left open when they ended: contenders (beside the leader) that more passes could still tell
    apart from it, the passes left below the rounds' most (0: they took them all) and about how many seconds those
    would take, at this run's seconds a visit."""

    contenders: int
    passes: int
    more_s: float


@dataclass(frozen=True)
class Driven:
    """What the driver did: the seconds of each phase and the rounds' figures (passes x contenders; None: no
    rounds), whether a stop ended it, the last plan, the phases the time budget cut short (by name) and what the
    rounds left undecided (None: nothing, or no rounds)."""

    search_s: float
    rounds_s: float
    figures: np.ndarray | None
    stopped: bool
    plan: Plan | None = None
    cut: tuple[str, ...] = ()
    undecided: Undecided | None = None


PHASES = ("search", "rounds", "walks")


def drive(workload: Workload, stop: threading.Event | None = None, budget: TimeBudget | None = None,
          watch: Watch | None = None) -> Driven:
    """Run the workload's phases in order until each is done, `stop` is set, or `budget` leaves no room for the next
    step (ov_tuner.engine.budget: the phases share it by what they can still decide)."""
    stopped = stop.is_set if stop is not None else (lambda: False)
    watch = watch or Unwatched()
    steps = _Steps(workload, budget, watch)
    started = time.perf_counter()
    steps.take("search", workload.search(), stopped)
    search_s, figures, undecided = time.perf_counter() - started, None, None
    if not stopped() and steps.enters("rounds"):
        with workload.rounds() as rounds:
            if rounds is not None:
                limits = steps.round_limits(rounds.limits)
                halt = threading.Event()  # set after a visit once a stop is asked for or no other visit fits
                figures = run_rounds(steps.timed("rounds", rounds.visit, stop, halt), rounds.candidates, limits,
                                     rounds.done, halt, rounds.log, clock=steps.clock)
                undecided = steps.undecided(figures, rounds, limits)
    rounds_s = time.perf_counter() - started - search_s
    if not stopped() and steps.enters("walks"):
        steps.take("walks", workload.walks(), stopped)
    driven = Driven(search_s, rounds_s, figures, stopped(), plan=steps.plan, cut=tuple(steps.cut),
                    undecided=undecided)
    watch.ended(driven)
    return driven


class _Steps:
    """The driver's clock: what each step cost, per phase; the plan made from it; and whether the budget leaves room
    for the next step of a phase once the fewest trials of the phases after it are kept."""

    def __init__(self, workload: Workload, budget: TimeBudget | None, watch: Watch) -> None:
        self.workload, self.budget, self.watch = workload, budget, watch
        self.clock = budget.clock if budget is not None else time.perf_counter
        self.costs: dict[str, list[float]] = {name: [] for name in PHASES}
        self.plan: Plan | None = None
        self.cut: list[str] = []
        self.over: set[str] = set()  # the phases that ended: a plan made after keeps nothing back for them
        self.told = False

    def take(self, phase: str, steps: Steps, stopped: Callable[[], bool]) -> None:
        """Take the phase's steps while no stop is asked for and the budget has room; the steps are closed either
        way, so a stopped workload's cleanup (a compiled model, a process) runs now."""
        with closing(steps):
            while not stopped():
                if not self._room(phase):
                    planned = self._planned(phase)
                    if planned is None or planned.most > 0:  # a phase with nothing to do (the sweep's walks) lost none
                        self.cut.append(phase)
                    return
                began = self.clock()
                try:
                    next(steps)
                except StopIteration:
                    return
                self._took(phase, self.clock() - began)

    def enters(self, phase: str) -> bool:
        """Whether the phase may start: the plan, made again now that the phases before it are over, leaves it
        trials (always, without a budget)."""
        self.over.update(PHASES[:PHASES.index(phase)])
        self._replan()
        planned = self._planned(phase)
        if planned is not None and planned.fits == 0 and planned.most > 0:
            self.cut.append(phase)
            return False
        return True

    def round_limits(self, limits: RoundLimits) -> RoundLimits:
        """The rounds' limits, their seconds what the time budget leaves once the walks' fewest are kept: with a time
        budget, that replaces a workload's own share for its rounds (the sweep's), since the phases share the budget
        by what they can still decide."""
        if self.budget is None:
            return limits
        return replace(limits, budget_s=max(0.0, self.budget.left() - self._reserve("rounds")))

    def timed(self, phase: str, visit: Measure, stop: threading.Event | None, halt: threading.Event) -> Measure:
        """The rounds' visit, each timed as a step of `phase`; after each, `halt` is set where `stop` is or the
        budget has no room for another visit (the rounds' first passes included: a visit may walk many trials, more
        than the calibration foresaw, and the run ends within its budget all the same)."""
        def timed_visit(position: int, number: int) -> float | None:
            began = self.clock()
            figure = visit(position, number)
            self._took(phase, self.clock() - began)
            asked = stop is not None and stop.is_set()
            if asked or not self._room(phase):
                if not asked:
                    self.cut.append(phase)
                halt.set()
            return figure
        return timed_visit

    def undecided(self, figures: np.ndarray, rounds: Rounds, limits: RoundLimits) -> Undecided | None:
        """The contenders the rounds left open, and the seconds their remaining passes would take."""
        open_now = (still_open(figures, rounds.candidates, rounds.log, limits.look_confidence)
                    if len(figures) >= limits.min_passes else [])
        if len(open_now) < 2:
            return None
        passes = max(limits.max_passes - len(figures), 0)
        return Undecided(len(open_now) - 1, passes, passes * len(open_now) * self._cost("rounds"))

    def _took(self, phase: str, seconds: float) -> None:
        self.costs[phase].append(seconds)
        if not self.told:  # the first trial calibrates the plan
            self.told = True
            self._replan()
        if self.plan is not None:
            self.watch.stepped(phase, len(self.costs[phase]), self.plan, self._spent())

    def _replan(self) -> None:
        if not isinstance(self.workload, Plans) or not any(self.costs.values()):
            return
        left = [replace(p, most=0, least=0) if p.name in self.over else p for p in self.workload.planned()]
        seconds = [self._cost(p.name, p.weight) for p in left]
        self.plan = plan(left, seconds, self._spent(), None if self.budget is None else self.budget.seconds)
        self.watch.planned(self.plan)

    def _spent(self) -> float:
        """The run's seconds so far: the budget's (from the command's start), else the steps' own."""
        return self.budget.spent() if self.budget is not None else sum(map(sum, self.costs.values()))

    def _planned(self, phase: str) -> PlannedPhase | None:
        return None if self.plan is None else next((p for p in self.plan.phases if p.name == phase), None)

    def _cost(self, phase: str, weight: float = 1.0) -> float:
        """A step of `phase`: the longest it has taken (a step is started only where such a step fits), else the
        calibration trial's seconds times the phase's weight."""
        if self.costs[phase]:
            return max(self.costs[phase])
        first = next((c[0] for c in self.costs.values() if c), 0.0)
        return first * weight

    def _reserve(self, phase: str) -> float:
        """The seconds the phases after `phase` need to decide anything, those the plan leaves out not counted (the
        demo's LLM step kept back its rounds' fewest, which its plan had left out, and searched one trial of 12)."""
        if self.plan is None:
            return 0.0
        later = PHASES[PHASES.index(phase) + 1:]
        phases = self.workload.planned() if isinstance(self.workload, Plans) else ()
        left_out = {p.name for p in self.plan.phases if p.fits == 0 and p.most > 0}
        return sum(p.least * self._cost(p.name, p.weight) for p in phases if p.name in later and p.name not in left_out)

    def _room(self, phase: str) -> bool:
        """Whether the budget has room for the next step of `phase`: always for the run's first (the calibration)."""
        if self.budget is None or not any(self.costs.values()):
            return True
        return self.budget.allows(self._cost(phase) + self._reserve(phase))
