"""The search policy without the runtime: its rules on known numbers, and simulated sweeps on recorded landscapes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ov_tuner.schema import Ending, StopRule, Window
from ov_tuner.stats.evidence import Estimate, clearly_worse
from ov_tuner.workloads.sweep.policy import Cell, Evidence, GridSearch, SmartSearch, Space
from ov_tuner.workloads.sweep.simulate import Landscape, load_landscapes, simulate

DATA = Path(__file__).parent / "data"
# The THROUGHPUT hint's choice on the recorded 16-core host (../shared/FIELD_NOTES.md: 16 streams, 16 requests);
# that file's hint baselines do not record it.
SIXTEEN_CORE_HINT = Cell(16, 16)
SIMULATIONS = 1000


def windows(*fps: float, seconds: float = 1.0) -> tuple[Window, ...]:
    return tuple(Window(f, 1000.0 / f, int(f * seconds), seconds) for f in fps)


def sixteen_core_space(hint: Cell | None = SIXTEEN_CORE_HINT) -> Space:
    return Space((1, 2, 4, 8, 16), (1, 2, 4, 8, 16, 32), 16, hint)


def test_anchors_are_the_hint_and_the_top_of_the_stream_range() -> None:
    policy = SmartSearch()
    assert policy.anchors(sixteen_core_space()) == [Cell(16, 16), Cell(16, 32)]
    assert policy.anchors(sixteen_core_space(Cell(4, 4))) == [Cell(4, 4), Cell(16, 16), Cell(16, 32)]
    two_core = Space((1, 2), (1, 2, 4), 2, Cell(2, 2))
    assert policy.anchors(two_core) == [Cell(2, 2), Cell(2, 4)]
    # a hint outside a space restricted by hand is not an anchor
    assert policy.anchors(Space((1,), (1,), 2, Cell(2, 2))) == [Cell(1, 1)]


def test_the_climb_never_tries_fewer_requests_than_streams() -> None:
    space = sixteen_core_space()
    assert Cell(16, 8) not in space.busy_cells() and Cell(16, 16) in space.busy_cells()
    assert space.neighbours(Cell(16, 32)) == [Cell(16, 16), Cell(8, 32), Cell(8, 16)]  # more streams first
    assert set(space.neighbours(Cell(4, 8))) == {Cell(8, 16), Cell(8, 8), Cell(4, 16), Cell(4, 4), Cell(2, 16),
                                                  Cell(2, 8), Cell(2, 4)}


def test_worse_only_when_the_interval_says_so() -> None:
    best = Estimate.of(windows(1000, 1010, 990, 1005, 995))
    assert clearly_worse(Estimate.of(windows(700, 710)), best)  # 30% under: two windows settle it
    assert not clearly_worse(Estimate.of(windows(960, 980)), best)  # 3% under: drift alone can do that
    # one very low window among agreeing ones is not a reason to call a point worse
    assert not clearly_worse(Estimate.of(windows(600, 1000, 990)), best)
    # a lone window must be far under the best
    assert clearly_worse(Estimate.of(windows(850)), best) and not clearly_worse(Estimate.of(windows(950)), best)
    # the noise figure leans on the prior until the point's own windows outweigh it
    assert Estimate.of(windows(1000)).window_cv == pytest.approx(0.04)
    assert Estimate.of(windows(*[1000, 1001] * 10)).window_cv < 0.02


def test_a_point_ends_when_its_decision_is_made() -> None:
    space, policy = sixteen_core_space(), SmartSearch(confirming=True)
    evidence = Evidence({Cell(16, 32): windows(1980, 1975, 1990, 1985)})
    assert policy.verdict(space, evidence, list(windows(1200, 1190))) is Ending.OUTPACED
    assert policy.verdict(space, evidence, list(windows(1950))) is None  # a near-tie earns a second window
    assert policy.verdict(space, evidence, list(windows(1950, 1940))) is Ending.DECIDED  # the round takes over
    # a wild point is not outpaced (its interval is wide) but the round, not more windows, measures it again
    assert policy.verdict(space, evidence, list(windows(1900, 1100))) is Ending.DECIDED
    assert SmartSearch(confirming=False).verdict(space, evidence, list(windows(1950, 1940, 1955))) is None
    assert GridSearch().verdict(space, evidence, list(windows(1, 1))) is None


def test_another_precisions_best_ends_a_slower_precisions_points_and_its_climb() -> None:
    space, policy = sixteen_core_space(), SmartSearch(confirming=True)
    here = {Cell(16, 16): windows(1000, 1005), Cell(16, 32): windows(990, 1000)}
    faster = Estimate.of(windows(1500, 1510, 1490))  # int8's best, searched first
    alone, beside = Evidence(here), Evidence(here, elsewhere=faster)
    assert alone.contenders() and beside.contenders() == []
    assert policy.verdict(space, alone, list(windows(980))) is None
    assert policy.verdict(space, beside, list(windows(980))) is Ending.OUTPACED  # one window shows it
    assert policy.next_cell(space, alone) is not None and policy.next_cell(space, beside) is None
    slower = Estimate.of(windows(500, 505))  # a slower precision's best changes nothing
    assert Evidence(here, elsewhere=slower).contenders() == alone.contenders()
    # a hint baseline is a reference: never outpaced, but done as soon as it cannot lead
    assert policy.baseline_verdict(list(windows(980)), leader=faster) is Ending.DECIDED
    assert policy.baseline_verdict(list(windows(1480)), leader=faster) is None
    assert SmartSearch(confirming=False).baseline_verdict(list(windows(980)), leader=faster) is None


def test_a_faster_hint_baseline_sends_the_search_to_its_configuration() -> None:
    space = Space((1, 2, 4), (1, 2, 4, 8), 4, Cell(4, 4))
    measured = {c: windows(1000, 1005, 995) if c.streams == 4 else windows(300, 302, 298)
                for c in space.busy_cells() if c != Cell(1, 1)}  # 1 x 1 is no contender's neighbour
    hint = ((Cell(1, 1), windows(2000, 2010, 1990)),)  # a hint that ran 1 x 1, twice as fast as the best
    assert SmartSearch().next_cell(space, Evidence(measured, baselines=hint)) == Cell(1, 1)
    assert SmartSearch().next_cell(space, Evidence(measured)) is None


def test_grid_search_measures_every_cell_in_order() -> None:
    space = Space((1, 2), (1, 2), 2)
    seen: dict[Cell, tuple[Window, ...]] = {}
    order = []
    while (cell := GridSearch().next_cell(space, Evidence(seen))) is not None:
        order.append(cell)
        seen[cell] = windows(100)
    assert order == [Cell(1, 1), Cell(1, 2), Cell(2, 1), Cell(2, 2)]


def recorded_landscapes() -> list[tuple[Landscape, bool]]:
    """Each recorded grid and precision, and whether it is a many-core one, where the search must also measure
    at most 40% of the grid (this project's 2-core host has 6 cells in all: the search measures most of them)."""
    return ([(land, True) for land in load_landscapes(DATA / "landscape-16core-mobilenet_v2.json",
                                                       SIXTEEN_CORE_HINT, 16)]
            + [(land, False) for land in load_landscapes(DATA / "landscape-2core-epyc-mobilenet_v2.json")])


@pytest.mark.parametrize(("landscape", "many_cores"), recorded_landscapes(), ids=lambda x: getattr(x, "name", ""))
def test_simulated_sweeps_find_the_top_of_each_recorded_landscape(landscape: Landscape, many_cores: bool) -> None:
    rng = np.random.default_rng(20261122)
    runs = [simulate(SmartSearch(), landscape, StopRule(), rng) for _ in range(SIMULATIONS)]
    hit_rate = np.mean([r.hit for r in runs])
    share = np.mean([r.measured for r in runs]) / len(landscape.space.cells())
    assert hit_rate >= 0.95, f"{landscape.name}: {hit_rate:.1%} of sweeps came within 5% of the grid's best"
    if many_cores:
        assert share <= 0.40, f"{landscape.name}: measured {share:.0%} of the grid on average"


def synthetic(name: str, fps: dict[Cell, float], space: Space, cv: float = 0.03, seed: int = 7) -> Landscape:
    """A landscape with `fps` per cell and four windows of `cv` noise each (fixed by `seed`)."""
    rng = np.random.default_rng(seed)
    cells = {c: windows(*(v * (1 + cv * rng.standard_normal(4)))) for c, v in fps.items()}
    return Landscape(name, space, cells)


def ridge(space: Space, peak: Cell, top: float = 2000.0) -> dict[Cell, float]:
    """FPS falling by a fifth per step (in streams or requests) away from `peak`."""
    s, n = space.streams.index(peak.streams), space.nireqs.index(peak.nireq)
    return {c: top * 0.8 ** max(abs(space.streams.index(c.streams) - s), abs(space.nireqs.index(c.nireq) - n))
            for c in space.cells()}


def test_one_early_step_made_to_look_40_percent_worse_does_not_stop_the_search() -> None:
    space = sixteen_core_space(hint=None)
    fps = ridge(space, Cell(16, 32))
    fps[Cell(2, 2)] *= 0.6  # the step the field's greedy climb tripped on
    land = synthetic("16-core ridge, 2 x 2 looks 40% worse", fps, space)
    rng = np.random.default_rng(1)
    assert all(simulate(SmartSearch(), land, StopRule(), rng).answer == Cell(16, 32) for _ in range(200))


def test_an_inner_top_is_reached_around_a_step_made_to_look_40_percent_worse() -> None:
    """The top is not at an anchor, and the step from the anchors towards it looks 40% worse than it is."""
    space = sixteen_core_space(hint=None)
    fps = ridge(space, Cell(4, 8))
    fps[Cell(8, 16)] *= 0.6
    land = synthetic("16-core, top at 4 x 8, 8 x 16 looks 40% worse", fps, space)
    rng = np.random.default_rng(2)
    runs = [simulate(SmartSearch(), land, StopRule(), rng) for _ in range(200)]
    assert np.mean([r.answer == Cell(4, 8) for r in runs]) >= 0.95
