"""Smart search: its rules on known numbers, and a real sweep that uses them."""

from __future__ import annotations

from pathlib import Path

from conftest import quick_spec

from ov_tuner.schema import Search
from ov_tuner.search import SEARCH_MIN_GAIN, candidate_nireqs, worth_more_requests, worth_more_streams
from ov_tuner.store import load_results
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
