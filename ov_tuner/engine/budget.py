"""One time budget for a whole run, and the plan the driver makes of it.

Why one budget: a user with a deadline knows how long they can wait, not how many windows, passes or walks that buys
on their host (the demo took 14 minutes on one 2-core host and 25 on another of the same size). So the run is given
seconds, counted from the moment the command starts (reading, converting and compiling included), and its phases take
trials while what is left allows.

How the phases share it: by what they can still decide, never in fixed shares. Each phase says the trials it takes at
most and the fewest that decide anything (the rounds' first passes over every contender; a walk's first windows); a
phase may start a trial only where, at the seconds a trial has cost so far, that trial and the fewest the later
phases need still fit. A phase that decides early (its rounds settled, its walk's edge repeated) leaves the rest to
the next. Where even the fewest do not fit, a phase is left out, and the plan says so before anything is spent.

A trial is never cut: it holds whole requests. So a run may end past its budget by the trial in progress; the
allowance below bounds how far, and a step is only started where the longest such step seen fits.
Pure: it never imports OpenVINO.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

# How far past its budget a run may end (a share of the budget): the trial in progress is never cut.
OVERRUN = 0.10

_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(s|sec|m|min|h)?\s*$", re.IGNORECASE)
_UNIT_S = {None: 1.0, "s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """'90', '90s', '5m', '1.5h' as seconds above 0 (ValueError otherwise)."""
    found = _DURATION.match(text)
    if found is None:
        raise ValueError(text)
    seconds = float(found.group(1)) * _UNIT_S[(found.group(2) or "").lower() or None]
    if not 0 < seconds < math.inf:
        raise ValueError(text)
    return seconds


@dataclass
class TimeBudget:
    """The seconds a run may take, counted from `started` (the clock's reading when it was made)."""

    seconds: float
    clock: Callable[[], float] = time.perf_counter
    started: float = field(default=math.nan)

    def __post_init__(self) -> None:
        if not self.seconds > 0:
            raise ValueError("a time budget needs seconds above 0")
        if math.isnan(self.started):
            self.started = self.clock()

    def spent(self) -> float:
        return self.clock() - self.started

    def left(self) -> float:
        return self.seconds - self.spent()

    def allows(self, seconds: float) -> bool:
        """Whether work of `seconds` started now ends within the budget."""
        return self.spent() + seconds <= self.seconds


@dataclass(frozen=True)
class PhasePlan:
    """A phase as its workload sees it before running it: the trials it takes at most (with no budget) and the fewest
    that decide anything (0: it may be left out whole)."""

    name: str
    most: int
    least: int = 0
    # What one of its trials costs in calibration trials (the run's first): a pass's visit of one window is a small
    # share of a search's trial that compiles and settles; a visit that walks several loads is several.
    weight: float = 1.0


@dataclass(frozen=True)
class PlannedPhase:
    """A phase in the plan: its trials at most, those the budget leaves it (None: no budget), and their seconds."""

    name: str
    most: int
    fits: int | None
    seconds: float

    @property
    def cut(self) -> bool:
        return self.fits is not None and self.fits < self.most


@dataclass(frozen=True)
class Plan:
    """What the run expects to do: each phase's trials and their seconds (at what a trial has cost on this host, the
    run's first trial calibrating the rest), `spent_s` already gone, within `budget_s` (None: no budget)."""

    phases: tuple[PlannedPhase, ...]
    spent_s: float
    budget_s: float | None

    @property
    def expected_s(self) -> float:
        """The whole run's expected seconds, the budget's cuts taken into account."""
        return self.spent_s + sum(p.seconds for p in self.phases)


def plan(phases: Sequence[PhasePlan], trial_s: Sequence[float], spent_s: float, budget_s: float | None) -> Plan:
    """Share what is left of `budget_s` across `phases` in order, a trial of each costing its `trial_s`: each takes
    the trials it may still decide with after keeping the fewest each later phase needs; a phase whose fewest do not
    fit beside the fewest of the phases before it is left out (0 trials). Without a budget every phase takes its
    most."""
    if budget_s is None:
        planned = tuple(PlannedPhase(p.name, p.most, None, p.most * s) for p, s in zip(phases, trial_s, strict=True))
        return Plan(planned, spent_s, None)
    left = max(budget_s - spent_s, 0.0)
    kept, fewest = [], 0.0  # the phases whose fewest trials fit, earlier phases first: a later one builds on them
    for phase, seconds in zip(phases, trial_s, strict=True):
        kept.append(fewest + phase.least * seconds <= left)
        fewest += phase.least * seconds if kept[-1] else 0.0
    found = []
    for number, (phase, seconds) in enumerate(zip(phases, trial_s, strict=True)):
        later = sum(p.least * s for p, s, k in zip(phases[number + 1:], trial_s[number + 1:], kept[number + 1:],
                                                    strict=True) if k)
        fits = min(phase.most, int(max(left - later, 0.0) // seconds)) if seconds > 0 else phase.most
        fits = fits if kept[number] and fits >= phase.least else 0
        left -= fits * seconds
        found.append(PlannedPhase(phase.name, phase.most, fits, fits * seconds))
    return Plan(tuple(found), spent_s, budget_s)
