"""The one capacity walk (ov_tuner.engine.boundary) on constructed windows: no single window sets the figure, repeats
go where the boundary is, an interval that straddles says so, and the same windows give the same answer."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ov_tuner.engine.boundary import REPEATS, WalkRule, Window, boundary, difference, figure, next_load

USERS = WalkRule(start=16, most=256)


def walk(meets: Callable[[float, int], bool], rule: WalkRule = USERS) -> list[Window]:
    """Drive the walk; `meets(load, nth)` says whether the nth window at that load met the target."""
    windows: list[Window] = []
    while (load := next_load(windows, rule)) is not None:
        windows.append((load, meets(load, sum(x == load for x, _ in windows))))
        assert len(windows) < 60, windows
    return windows


def test_a_steady_boundary_is_found_with_both_edges_repeated_and_far_loads_once() -> None:
    windows = walk(lambda load, _: load <= 36)
    loads = [x for x, _ in windows]
    assert loads[:3] == [16, 32, 64]
    assert loads.count(36) >= REPEATS and loads.count(37) >= REPEATS
    assert all(loads.count(x) == 1 for x in (16, 32, 64, 48, 40))
    walked = boundary(windows, rerun=False)  # what the windows themselves say
    assert walked.served == 36
    assert walked.low == 36 and walked.high <= 37
    assert not walked.at_ceiling
    found = boundary(windows)  # and with the spread a rerun shows beside it
    assert found.low < 36 < 37 < found.high and found.served == 36


def test_one_noisy_window_cannot_set_the_figure() -> None:
    """A window that missed at 32 by chance (the first there only) sends the walk down, and the repeats at the edge
    bring it back up to the boundary the other windows show."""
    windows = walk(lambda load, nth: load <= 36 and not (load == 32 and nth == 0))
    assert windows[1] == (32.0, False)
    assert boundary(windows).served == 36


def test_one_lucky_window_cannot_set_the_figure() -> None:
    windows = walk(lambda load, nth: load <= 36 or (load == 40 and nth == 0))
    assert boundary(windows).served == 36


def test_an_edge_that_meets_the_target_half_the_time_makes_a_wide_interval_that_says_so() -> None:
    """At 36 every other window misses: after the most repeats the interval spans loads below and above."""
    windows = walk(lambda load, nth: load < 36 or (load == 36 and nth % 2 == 0))
    found = boundary(windows)
    assert found.low < found.served or found.high > found.served
    assert 35 <= found.served <= 36
    assert found.low <= 35 <= found.high


def test_a_walk_that_meets_the_target_everywhere_stops_at_its_ceiling_and_says_at_least() -> None:
    windows = walk(lambda load, _: True, WalkRule(start=16, most=100))
    found = boundary(windows)
    assert found.served == 100 and found.at_ceiling and found.high == 100


def test_nothing_met_is_zero_after_repeats_at_the_least_load() -> None:
    windows = walk(lambda load, _: False)
    assert [x for x, _ in windows][-REPEATS:] == [1.0] * REPEATS
    found = boundary(windows)
    assert found.served == 0 and found.low == 0


def test_a_rate_walks_as_a_continuous_load_to_its_precision() -> None:
    rule = WalkRule(start=4.0, most=256.0, whole=False, least=4.0 / 64)
    windows = walk(lambda load, _: load <= 21.3, rule)
    found = boundary(windows, whole=False)
    assert 21.3 * 0.94 <= found.served <= 21.3
    assert found.high >= found.served


def test_the_same_windows_give_the_same_interval() -> None:
    rng = np.random.default_rng(3)
    windows = [(float(x), bool(rng.random() < 0.5)) for x in rng.choice([30, 32, 34, 36], 24)]
    assert boundary(windows) == boundary(list(windows))
    assert figure(windows) == boundary(windows).served  # what a search reads at each step, without the draws


def test_a_difference_of_two_walks_is_told_apart_only_where_its_interval_excludes_zero() -> None:
    more, fewer, same = walk(lambda x, _: x <= 48), walk(lambda x, _: x <= 36), walk(lambda x, _: x <= 48)
    apart = difference(more, fewer)
    assert apart.value == 12 and apart.differs and apart.low > 0
    tied = difference(more, same)
    assert tied.value == 0 and not tied.differs and tied.low <= 0 <= tied.high


def test_a_boundary_that_is_a_wide_band_stops_at_its_most_repeats_and_says_how_wide() -> None:
    """Between 33 and 39 users every window is a coin flip (the demo's TPOT at its budget on 2 cores): the walk would
    wander along the band; it stops at its cap of repeats, and the interval spans the band."""
    rng = np.random.default_rng(7)
    windows = walk(lambda load, _: load < 33 or (load <= 39 and bool(rng.random() < 0.5)))
    assert len(windows) - len({x for x, _ in windows}) <= USERS.most_repeated
    found = boundary(windows)
    assert found.high - found.low >= 2


def test_a_walk_over_a_wide_range_brackets_and_bisects_in_full_before_any_cap() -> None:
    """From one camera to 300: ten doublings and the bisection to 5%, then the edges; the cap counts repeats only."""
    windows = walk(lambda load, _: load <= 300, WalkRule(start=1, most=4096))
    found = boundary(windows, rerun=False)
    assert 300 * 0.95 <= found.served <= 300 < found.high <= 320
    assert len({x for x, _ in windows}) >= 14 and len(windows) > 16


def test_a_repeat_that_turns_the_highest_load_served_grows_the_walk_though_the_repeats_are_spent() -> None:
    """The demo's LLMPipeline default (8 users asked): its rounds' three windows at 8 missed twice, the walk went down
    to 4, up to 7 and repeated the edges, and two more met at 8, its sixth repeat. 8 was then served with nothing tried
    above it: the walk stopped there and said "8 users or more". The cap counts repeats: it tries 16, then bisects."""
    rule = WalkRule(start=8, most=32, most_repeated=6)
    windows: list[Window] = [(8, False), (8, False), (8, True), (4, True), (6, True), (7, True), (7, True),
                             (7, True), (8, True), (8, True)]
    assert next_load(windows, rule) == 16
    windows.append((16, False))
    assert next_load(windows, rule) == 12  # a load not tried yet: the bisection goes on
    windows += [(12, False), (10, False), (9, False)]
    assert next_load(windows, rule) is None  # bracketed to one user; no repeat after the cap
    found = boundary(windows)
    assert found.served == 8 and not found.at_ceiling and found.high < 16
