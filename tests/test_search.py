"""Smart search: its rules on known numbers, and a real sweep that uses them."""

from __future__ import annotations

from pathlib import Path

from conftest import quick_spec
from factories import make_point

from ov_tuner.schema import Ending, Search, StopRule, Window
from ov_tuner.search.policy import (
    SEARCH_MIN_GAIN,
    candidate_nireqs,
    outpaced,
    worth_more_requests,
    worth_more_streams,
)
from ov_tuner.store.results import ResultStore, load_results
from ov_tuner.sweep import run_sweep


def test_requests_climb_while_each_step_pays() -> None:
    assert worth_more_requests([100.0])
    assert worth_more_requests([100.0, 100.0 * (1 + SEARCH_MIN_GAIN)])
    assert not worth_more_requests([100.0, 102.0])  # +2%: stop
    assert not worth_more_requests([100.0, 150.0, 149.0])  # below the best so far
    assert worth_more_requests([100.0, 150.0, 160.0])


def test_streams_climb_while_the_best_improves() -> None:
    assert worth_more_streams([300.0])
    assert worth_more_streams([300.0, 320.0])
    assert not worth_more_streams([300.0, 305.0])
    assert not worth_more_streams([300.0, 400.0, 390.0])


def test_a_point_is_outpaced_once_its_windows_cannot_reach_the_best() -> None:
    def windows(*fps: float) -> list[Window]:
        return [Window(f, 1.0, 100, 1.0) for f in fps]

    assert outpaced(windows(100), best_fps=107, tolerance=0.03)  # a clear loser: 100 * 1.06 < 107
    assert not outpaced(windows(100), best_fps=105, tolerance=0.03)  # one window may be a slow start
    assert outpaced(windows(100, 100), best_fps=103, tolerance=0.03)  # 100 * (1 + 0.03 / sqrt 2) < 103
    assert not outpaced(windows(100, 100), best_fps=102, tolerance=0.03)  # within the noise of two windows
    assert outpaced(windows(100, 100, 100, 100), best_fps=102, tolerance=0.03)  # four agree: 100 * 1.015 < 102
    assert not outpaced(windows(94, 110), best_fps=104, tolerance=0.03)  # its first window was low
    # FPS so far is frames over time, not a mean of window figures
    assert outpaced([Window(90, 1.0, 90, 3.0), Window(200, 1.0, 20, 0.1)], best_fps=100, tolerance=0.03)


def test_fewer_requests_than_streams_are_not_tried() -> None:
    assert candidate_nireqs((1, 2, 4, 8), 1) == (1, 2, 4, 8)
    assert candidate_nireqs((1, 2, 4, 8), 4) == (4, 8)
    assert candidate_nireqs((1, 2), 4) == (2,)  # none keeps every stream busy: the most there is


def test_smart_sweep_measures_a_subset_of_the_grid_and_stores_it_the_same_way(tiny_model: Path,
                                                                               tmp_path: Path) -> None:
    spec = quick_spec(tiny_model, tmp_path / "smart.db", streams=(1, 2), nireq=(1, 2, 4, 8, 16),
                      search=Search.SMART)
    summary = run_sweep(spec)
    points = load_results(spec.out).points
    assert summary.measured == len(points) >= 2
    assert summary.measured + summary.dropped == 5 + 4  # 1 stream: 1..16; 2 streams: 2..16
    assert all(p.config.nireq >= p.config.streams for p in points)
    for streams in {p.config.streams for p in points}:  # each compiled model climbed 1, 2, 4, ... in order
        tried = sorted(p.config.nireq for p in points if p.config.streams == streams)
        assert tried == [n for n in (1, 2, 4, 8, 16) if n >= streams][: len(tried)]
    # the rerun resumes: nothing left to measure, and the stored points decide the same way
    again = run_sweep(spec)
    assert again.measured == 0 and again.skipped == summary.measured


def test_smart_sweep_stops_an_outpaced_point_where_grid_measures_it_in_full(tiny_model: Path, tmp_path: Path) -> None:
    never_settles = StopRule(window_s=0.05, tolerance=0.0, max_s=0.5)
    for search in (Search.SMART, Search.GRID):
        out = tmp_path / f"{search.value}.db"
        with ResultStore(out) as store:  # a stored rival far out of reach: 1 stream, 1 request, a million FPS
            store.add_point(make_point(1, 1, 1e6), None)
        spec = quick_spec(tiny_model, out, streams=(1,), nireq=(1, 2), stop=never_settles, search=search)
        summary = run_sweep(spec)
        (point,) = [p for p in load_results(out).points if p.config.nireq == 2]
        assert point.measurement is not None
        if search is Search.SMART:
            assert summary.outpaced == 1
            assert point.measurement.ended is Ending.OUTPACED and len(point.measurement.windows) == 1
        else:
            assert summary.outpaced == 0
            assert point.measurement.ended is Ending.CAPPED and point.measurement.wall_s >= 0.5
