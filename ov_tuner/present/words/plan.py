"""How a run's plan, its clock and what its time budget left undecided read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ov_tuner.present.words.numbers import clock_text, names

if TYPE_CHECKING:
    from ov_tuner.engine.budget import Plan, PlannedPhase
    from ov_tuner.engine.driver import Driven
    from ov_tuner.stats.settle import Settling

# What a phase's trials are called, for the plan's line.
STEP_NAMES = {"search": "trials", "rounds": "visits", "walks": "steps"}


def _steps(count: int, phase: str) -> str:
    """'1 trial', '3 visits'."""
    unit = STEP_NAMES.get(phase, "steps")
    return f"{count} {unit[:-1] if count == 1 else unit}"


def _phase_text(phase: PlannedPhase) -> str:
    if phase.fits is None or not phase.cut:
        return f"{phase.name} {_steps(phase.most, phase.name)} ({clock_text(phase.seconds)})"
    if phase.fits == 0:
        return f"{phase.name} left out"
    return f"{phase.name} {phase.fits} of {_steps(phase.most, phase.name)} ({clock_text(phase.seconds)})"


def plan_lines(plan: Plan) -> list[str]:
    """The plan, said once the calibration trial has run: each phase's trials and time, the whole run's, and what the
    time budget leaves out."""
    phases = [p for p in plan.phases if p.most > 0]
    steps = ", ".join(_phase_text(p) for p in phases) or "nothing left to measure"
    within = "" if plan.budget_s is None else f" of the time budget's {clock_text(plan.budget_s)}"
    lines = [f"plan: {steps}; about {clock_text(plan.expected_s)} in all{within} ({clock_text(plan.spent_s)} "
             "spent), from this host's first trial"]
    cut = [p for p in phases if p.cut]
    if cut:
        left_out = [f"{_steps(p.most - (p.fits or 0), p.name)} of the {p.name}" for p in cut]
        lines.append(f"the time budget leaves out {names(left_out)}: what they would decide is said as undecided; "
                     "a rerun with a larger --time-budget goes on from what is stored")
    return lines


def clock_line(phase: str, done: int, plan: Plan, spent_s: float) -> str:
    """Where the run is: its phase and steps done, the `spent_s` seconds spent and about how many the plan leaves."""
    left = max(plan.expected_s - spent_s, 0.0)
    return f"{phase}: {_steps(done, phase)} done, {clock_text(spent_s)} spent, " \
           f"about {clock_text(left)} left"


def ending_lines(driven: Driven) -> list[str]:
    """What the time budget cut short and what the rounds left undecided, with about how much more time would settle
    it; nothing where the run did all it planned."""
    lines = []
    if driven.cut:
        lines.append(f"the time budget cut short the {names(list(dict.fromkeys(driven.cut)))}: what they would have "
                     "decided is left undecided")
    if driven.undecided is not None:
        open_now = driven.undecided
        them = "them" if open_now.contenders != 1 else "it"
        more = (f"about {clock_text(open_now.more_s)} more of passes ({open_now.passes} more) could settle {them}"
                if open_now.passes else f"they took the most passes asked for: more --passes could settle {them}")
        lines.append(f"undecided: {open_now.contenders} contender{'s' if open_now.contenders != 1 else ''} of the "
                     f"rounds not yet told apart from the leader; {more}")
    if lines and driven.plan is not None and driven.plan.budget_s is not None:
        lines.append("rerun the same command with a larger --time-budget: it goes on from what is stored and spends "
                     "the new time on what is undecided")
    return lines


def settle_text(settle: Settling, unit: tuple[str, str], difference: str) -> str:
    """'about 3:10 more of measuring (12 more windows) would settle a difference of 2 users': what a comparison left
    open needs, `unit` naming what it counts (one, many) and `difference` the difference as its line reads it; or
    that more of this run cannot narrow it."""
    if settle.more == 0:
        return f"more {unit[1]} would not narrow it: a rerun's spread sets its width, and a difference under " \
               f"{difference} is not told apart by one run"
    counted = f"{settle.more} more {unit[0] if settle.more == 1 else unit[1]}"
    return f"about {clock_text(settle.seconds)} more of measuring ({counted}) would settle a difference of {difference}"
