"""The run's clock as a person sees it: the plan once the first trial has calibrated it, then on a terminal a
progress line (the phase, time spent, time left) that rich redraws in place, and without one plain lines, one a
phase and one a minute; at the end, what the time budget left undecided."""

from __future__ import annotations

import time
from types import TracebackType
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn

from ov_tuner.engine.budget import TimeBudget, parse_duration
from ov_tuner.errors import BadInputError
from ov_tuner.present.words.plan import clock_line, ending_lines, plan_lines

if TYPE_CHECKING:  # types alone: building the command line imports no numpy
    from ov_tuner.engine.budget import Plan
    from ov_tuner.engine.driver import Driven

# Without a terminal, the clock's plain line comes at each phase's start and then at most this often (seconds).
PLAIN_EVERY_S = 60.0


# Every workload's command takes it: named apart from the latency budgets (--ttft-ms, the pipeline's budget).
TimeBudgetOption = Annotated[str | None, typer.Option(
    "--time-budget", help="The most time the whole run may take (seconds, or 90s, 5m, 1h), compiles and checks "
    "included: its phases share it by what they can still decide, it ends within it plus 10%, and the answer says "
    "what it left undecided; rerun with more to go on. \\[default: no limit]")]


def budget_seconds(text: str | None) -> float | None:
    """--time-budget in seconds, None where not given."""
    if text is None:
        return None
    try:
        return parse_duration(text)
    except ValueError:
        raise BadInputError(f"--time-budget {text}: give seconds above 0, as 600, 90s, 5m or 1h") from None


def time_budget(text: str | None) -> TimeBudget | None:
    """--time-budget as a budget started now (the command's start), None where not given."""
    seconds = budget_seconds(text)
    return None if seconds is None else TimeBudget(seconds)


class ConsoleWatch:
    """A driver's Watch on `console`: the plan's lines when it is first made, then the clock; `live`, on a terminal,
    redraws one progress line (the steps printed meanwhile scroll above it)."""

    def __init__(self, console: Console, live: bool | None = None) -> None:
        self.console = console
        self.live = console.is_terminal if live is None else live
        self.progress: Progress | None = None
        self.task: TaskID | None = None
        self.said_plan = False
        self.last_phase = ""
        self.last_plain = 0.0

    def __enter__(self) -> ConsoleWatch:
        if self.live:
            self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), console=self.console,
                                     transient=True)
            self.progress.start()
            self.task = self.progress.add_task("calibrating: the first trial", total=None)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) \
            -> None:
        if self.progress is not None:
            self.progress.stop()

    def planned(self, plan: Plan) -> None:
        if not self.said_plan:
            self.said_plan = True
            for line in plan_lines(plan):
                self.console.print(line, highlight=False, soft_wrap=True)

    def stepped(self, phase: str, done: int, plan: Plan, spent_s: float) -> None:
        line = clock_line(phase, done, plan, spent_s)
        if self.progress is not None and self.task is not None:
            self.progress.update(self.task, description=line)
            return
        now = time.monotonic()
        if phase != self.last_phase or now - self.last_plain >= PLAIN_EVERY_S:
            self.last_phase, self.last_plain = phase, now
            self.console.print(line, highlight=False, soft_wrap=True)

    def ended(self, driven: Driven) -> None:
        for line in ending_lines(driven):
            self.console.print(line, highlight=False, soft_wrap=True)
