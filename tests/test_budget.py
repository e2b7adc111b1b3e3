"""The time budget: durations read, the plan shared across phases from constructed trial costs, the driver ending
within it on a constructed clock, a resumed run spending only on what is left, and the plan's words. Pure: no
OpenVINO, no host speed."""

from __future__ import annotations

import math
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field

import numpy as np
import pytest
from rich.console import Console

from ov_tuner.commandline.clock import ConsoleWatch
from ov_tuner.engine.budget import OVERRUN, PhasePlan, TimeBudget, parse_duration, plan
from ov_tuner.engine.driver import Driven, Rounds, Steps, Undecided, drive
from ov_tuner.engine.rounds import RoundLimits
from ov_tuner.present.words.numbers import clock_text
from ov_tuner.present.words.plan import clock_line, ending_lines, plan_lines, settle_text
from ov_tuner.stats.settle import FLOOR_FACTOR, Settling, settling


@pytest.mark.parametrize(("text", "seconds"), [("90", 90), ("90s", 90), ("5m", 300), ("1h", 3600), ("1.5m", 90),
                                                (" 2 min ", 120)])
def test_a_duration_reads_as_seconds(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["0", "-5", "five", "5d", "", "m"])
def test_a_duration_that_is_not_one_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


def test_a_clock_reads_minutes_and_hours() -> None:
    assert (clock_text(42), clock_text(185), clock_text(3720)) == ("0:42", "3:05", "1:02:00")


def test_each_phase_takes_what_it_can_still_decide_with_after_keeping_the_fewest_the_later_need() -> None:
    phases = [PhasePlan("search", 10), PhasePlan("rounds", 12, 6), PhasePlan("walks", 20, 5)]
    found = plan(phases, [1.0, 1.0, 1.0], spent_s=2.0, budget_s=30.0)
    assert [p.fits for p in found.phases] == [10, 12, 6]  # 28 s left: the walks get what the others left
    assert found.expected_s == pytest.approx(30.0) and [p.cut for p in found.phases] == [False, False, True]
    tight = plan(phases, [1.0, 2.0, 1.0], spent_s=0.0, budget_s=12.0)
    assert [p.fits for p in tight.phases] == [0, 6, 0]  # the rounds' first passes take it all: the walks left out
    assert [p.fits for p in plan(phases, [1.0, 2.0, 1.0], 0.0, 16.0).phases] == [4, 6, 0]  # the walks need 17 s
    assert plan(phases, [1.0, 1.0, 1.0], spent_s=0.0, budget_s=None).expected_s == 42.0  # no budget: all of it


@dataclass
class Constructed:
    """A workload whose trials advance a constructed clock by their costs; what it measured stays `stored`, so a
    second drive over it is a resumed run."""

    now: list[float]
    search_costs: list[float]
    walk_costs: list[float]
    visit_s: float = 1.0
    passes: tuple[int, int] = (2, 6)
    stored: dict[str, int] = field(default_factory=lambda: {"search": 0, "rounds": 0, "walks": 0})
    figures: tuple[float, ...] = (100.0, 80.0, 60.0)
    weight: float | None = None  # what the workload says a visit costs in search trials (None: what it does cost)
    said_contenders: int | None = None  # the contenders its plan counts (None: those that go to the rounds)

    def _step(self, phase: str, cost: float) -> None:
        self.now[0] += cost
        self.stored[phase] += 1

    def search(self) -> Steps:
        for cost in self.search_costs[self.stored["search"]:]:
            self._step("search", cost)
            yield cost

    def rounds(self) -> AbstractContextManager[Rounds | None]:
        def visit(position: int, number: int) -> float:
            self._step("rounds", self.visit_s)
            return self.figures[position] * (1 + 0.3 * np.sin(7 * number + position))  # noisy: stays open

        return nullcontext(Rounds(visit, [True] * len(self.figures), RoundLimits(*self.passes)))

    def walks(self) -> Steps:
        for cost in self.walk_costs[self.stored["walks"]:]:
            self._step("walks", cost)
            yield cost

    def planned(self) -> tuple[PhasePlan, PhasePlan, PhasePlan]:
        contenders, (least, most) = self.said_contenders or len(self.figures), self.passes
        return (PhasePlan("search", len(self.search_costs) - self.stored["search"]),
                PhasePlan("rounds", max(contenders * most - self.stored["rounds"], 0),
                          max(contenders * least - self.stored["rounds"], 0),
                          self.weight or self.visit_s / self.search_costs[0]),
                PhasePlan("walks", len(self.walk_costs) - self.stored["walks"],
                          min(2, len(self.walk_costs) - self.stored["walks"])))


class Told:
    def __init__(self) -> None:
        self.plans: list[object] = []
        self.steps: list[tuple[str, int]] = []
        self.endings: list[object] = []

    def planned(self, plan: object) -> None:
        self.plans.append(plan)

    def stepped(self, phase: str, done: int, plan: object, spent_s: float) -> None:
        self.steps.append((phase, done))

    def ended(self, driven: object) -> None:
        self.endings.append(driven)


def test_a_budgeted_run_ends_within_its_budget_and_keeps_room_for_the_rounds_and_walks() -> None:
    now = [0.0]
    workload = Constructed(now, search_costs=[3.0] * 20, walk_costs=[2.0] * 30)
    told = Told()
    driven = drive(workload, budget=TimeBudget(40.0, clock=lambda: now[0]), watch=told)
    assert now[0] <= 40.0 * (1 + OVERRUN)
    assert 0 < workload.stored["search"] < 20  # cut short ...
    assert workload.stored["rounds"] >= 3 * 2  # ... so the rounds took their first passes over every contender
    assert workload.stored["walks"] >= 2  # and the walks their fewest
    assert "search" in driven.cut and "walks" in driven.cut
    assert told.plans and told.plans[0].budget_s == 40.0 and told.endings == [driven]  # type: ignore[attr-defined]
    assert told.steps[0] == ("search", 1)


def test_without_a_budget_every_phase_runs_to_its_end() -> None:
    now = [0.0]
    workload = Constructed(now, search_costs=[3.0] * 5, walk_costs=[2.0] * 4)
    driven = drive(workload)
    assert workload.stored["search"] == 5 and workload.stored["walks"] == 4 and driven.cut == ()


def test_a_rerun_with_a_larger_budget_spends_only_on_what_is_left() -> None:
    now = [0.0]
    workload = Constructed(now, search_costs=[3.0] * 8, walk_costs=[2.0] * 10, passes=(2, 2))
    drive(workload, budget=TimeBudget(30.0, clock=lambda: now[0]))
    first = dict(workload.stored)
    assert first["search"] < 8 or first["walks"] < 10
    now[0] = 1000.0
    resumed = Constructed(now, search_costs=[3.0] * 8, walk_costs=[2.0] * 10, passes=(2, 2), stored=dict(first))
    drive(resumed, budget=TimeBudget(200.0, clock=lambda: now[0]))
    assert resumed.stored["search"] == 8 and resumed.stored["walks"] == 10
    spent = now[0] - 1000.0
    left = (8 - first["search"]) * 3.0 + (10 - first["walks"]) * 2.0 + 6 * 1.0
    assert spent == pytest.approx(left)  # the measured steps again only where stored ones were missing


def test_the_rounds_are_left_out_where_their_first_passes_do_not_fit() -> None:
    now = [0.0]
    workload = Constructed(now, search_costs=[1.0] * 3, walk_costs=[1.0] * 10, visit_s=5.0)
    driven = drive(workload, budget=TimeBudget(12.0, clock=lambda: now[0]))
    assert workload.stored["rounds"] == 0 and driven.figures is None and "rounds" in driven.cut
    assert workload.stored["walks"] > 0 and now[0] <= 12.0 * (1 + OVERRUN)


def test_the_plan_says_its_phases_time_and_what_the_budget_leaves_out() -> None:
    phases = [PhasePlan("search", 10), PhasePlan("rounds", 12, 6), PhasePlan("walks", 20, 5)]
    lines = plan_lines(plan(phases, [6.0, 6.0, 6.0], spent_s=30.0, budget_s=240.0))
    assert lines[0].startswith("plan: search 10 trials (1:00), rounds 12 visits (1:12), walks 13 of 20 steps (1:18)")
    assert "about 4:00 in all of the time budget's 4:00 (0:30 spent)" in lines[0]
    assert lines[1].startswith("the time budget leaves out 7 steps of the walks")
    assert plan_lines(plan(phases, [6.0, 6.0, 6.0], 0.0, None))[1:] == []  # nothing left out without a budget


def test_the_watch_without_a_terminal_says_the_plan_once_then_plain_clock_lines_and_what_was_left() -> None:
    now = [0.0]
    console = Console(record=True, width=200)
    workload = Constructed(now, search_costs=[3.0] * 20, walk_costs=[2.0] * 30)
    with ConsoleWatch(console, live=False) as watch:
        driven = drive(workload, budget=TimeBudget(40.0, clock=lambda: now[0]), watch=watch)
    text = console.export_text()
    assert text.count("plan: ") == 1 and "search: 1 trial done" in text and "rounds: 1 visit done" in text
    assert ending_lines(driven)[0] in text and "larger --time-budget" in text


def test_what_the_rounds_left_undecided_says_how_much_more_would_settle_it() -> None:
    budgeted = plan([PhasePlan("search", 1)], [1.0], 0.0, 60.0)
    more = Driven(1.0, 2.0, None, False, plan=budgeted, cut=("walks",), undecided=Undecided(2, 3, 45.0))
    lines = ending_lines(more)
    assert lines[0] == "the time budget cut short the walks: what they would have decided is left undecided"
    assert "2 contenders of the rounds not yet told apart" in lines[1] and "0:45 more of passes (3 more)" in lines[1]
    assert "larger --time-budget" in lines[2]
    spent = ending_lines(Driven(1.0, 2.0, None, False, undecided=Undecided(1, 0, 0.0)))
    assert spent == ["undecided: 1 contender of the rounds not yet told apart from the leader; they took the most "
                     "passes asked for: more --passes could settle it"]
    assert ending_lines(Driven(1.0, 2.0, None, False, budgeted)) == []


def test_an_open_comparison_is_told_the_passes_that_would_settle_it() -> None:
    # +1 camera (95%: -1..+3) over 4 passes of 30 s: a half-width of 2 narrows to 1 at 16 passes, 12 more
    found = settling(1.0, -1.0, 3.0, spent=4, seconds_each=30.0, smallest=1.0)
    assert found == Settling(difference=1.0, more=12, seconds=360.0)
    # a difference of nothing is settled at the smallest worth telling apart, not never
    assert settling(0.0, -2.0, 2.0, spent=4, seconds_each=1.0, smallest=2.0) == Settling(2.0, 1, 1.0)


def test_a_ratio_is_settled_on_the_log_scale_and_a_decided_one_needs_nothing() -> None:
    found = settling(1.02, 0.95, 1.10, spent=3, seconds_each=10.0, smallest=0.05, log=True)
    assert found is not None and found.difference == pytest.approx(0.05)
    half = (math.log(1.10) - math.log(0.95)) / 2
    assert found.more == math.ceil(3 * ((half / math.log(1.05)) ** 2 - 1))
    assert settling(1.2, 1.1, 1.3, spent=3, seconds_each=10.0, smallest=0.05, log=True) is None  # told apart
    assert settling(1.0, math.nan, math.nan, spent=1, seconds_each=10.0, smallest=0.05, log=True) is None


def test_the_part_of_an_interval_no_pass_narrows_is_never_counted_on() -> None:
    # a half-width of 5 = 3 shrinking + 2 a rerun may move (a walk's, added): a difference of 4 leaves 2 for the
    # shrinking part, so the windows go from 4 to 4 x (3 / 2)^2 = 9
    assert settling(1.0, -4.0, 6.0, spent=4, seconds_each=1.0, smallest=4.0, floor=2.0, linear=True) == \
        Settling(4.0, 5, 5.0)
    # a difference within the floor is never promised: the one settled is half again the floor
    found = settling(1.0, -4.0, 6.0, spent=4, seconds_each=1.0, smallest=1.0, floor=2.0, linear=True)
    assert found is not None and found.difference == FLOOR_FACTOR * 2.0
    # in quadrature (a ratio's): half 5 = hypot(4, 3); a difference of 5 leaves hypot(5, 3) = 4 of room: 4 x (4 / 4)^2
    # windows settle it, so one more at the least
    assert settling(1.0, -4.0, 6.0, spent=4, seconds_each=1.0, smallest=5.0, floor=3.0) == Settling(5.0, 1, 1.0)


def test_a_comparison_more_passes_cannot_narrow_says_so_rather_than_a_time() -> None:
    assert settle_text(Settling(0.16, 0, 0.0), ("pass", "passes"), "16%") == (
        "more passes would not narrow it: a rerun's spread sets its width, and a difference under 16% is not told "
        "apart by one run")
    assert settle_text(Settling(2.0, 1, 190.0), ("window", "windows"), "2 users") == (
        "about 3:10 more of measuring (1 more window) would settle a difference of 2 users")


def test_the_clock_line_counts_the_time_spent_now_against_the_plan() -> None:
    """The demo's sweep once printed '17 trials done, 0:07 spent, about 1:42 left' a minute into its search: the time
    at the plan, not the time now."""
    made = plan([PhasePlan("search", 21)], [5.0], 7.0, 120.0)  # 21 trials of 5 s after 7 s spent: 1:52 expected
    assert clock_line("search", 17, made, 67.0) == "search: 17 trials done, 1:07 spent, about 0:45 left"
    assert clock_line("search", 21, made, 130.0).endswith("2:10 spent, about 0:00 left")


def test_a_phase_with_nothing_to_do_is_never_said_to_be_cut_short() -> None:
    """The demo's sweep (no walks) once ended saying the time budget cut short its walks."""
    now = [0.0]
    workload = Constructed(now, search_costs=[3.0] * 30, walk_costs=[])
    driven = drive(workload, budget=TimeBudget(30.0, clock=lambda: now[0]))
    assert "search" in driven.cut and "walks" not in driven.cut


def test_visits_dearer_than_the_plan_foresaw_still_end_within_the_budget() -> None:
    """The demo's pipeline planned its rounds' visits at 9 s and they walked 40-60 s each: its first passes ran on to
    2:19 of a 2:00 budget. Each visit is now followed by the budget's check, its first passes included."""
    now = [0.0]
    workload = Constructed(now, search_costs=[1.0] * 5, walk_costs=[1.0] * 4, visit_s=10.0, weight=1.0)
    driven = drive(workload, budget=TimeBudget(30.0, clock=lambda: now[0]))
    assert now[0] <= 30.0 * (1 + OVERRUN) and "rounds" in driven.cut
    assert workload.stored["rounds"] < 6  # the first two passes of three contenders would have taken 60 s


def test_a_phase_the_plan_leaves_out_keeps_nothing_back_from_the_phases_before_it() -> None:
    """The demo's LLM step planned 12 search trials with its rounds left out, then kept back the rounds' fewest all
    the same and searched one trial."""
    now = [0.0]
    workload = Constructed(now, search_costs=[1.0] * 10, walk_costs=[1.0] * 4, visit_s=10.0)
    driven = drive(workload, budget=TimeBudget(20.0, clock=lambda: now[0]))
    assert driven.plan is not None and [p.fits for p in driven.plan.phases][1] == 0  # the rounds' 60 s do not fit
    assert workload.stored["search"] == 10 and workload.stored["rounds"] == 0 and "rounds" in driven.cut


def test_a_phase_that_ended_keeps_nothing_back_from_the_phases_after_it() -> None:
    """The demo's LLM step planned six contenders' first passes and three went to its rounds; once they ended, the
    walks were planned beside the three passes never taken, left out, and the step ended with 106 s of its 180 left."""
    now = [0.0]
    workload = Constructed(now, search_costs=[5.0] * 20, walk_costs=[5.0] * 10, visit_s=3.0, passes=(2, 2),
                           said_contenders=8)
    driven = drive(workload, budget=TimeBudget(60.0, clock=lambda: now[0]))
    assert workload.stored["rounds"] == 6  # three contenders' first two passes, where the plan counted eight
    assert workload.stored["walks"] >= 2 and "walks" in driven.cut  # the walks took what was left
    assert now[0] <= 60.0 * (1 + OVERRUN)
