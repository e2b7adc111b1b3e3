"""An LLM trial's counted window: when it opens, what it counts, and the files written before it. The window's rules
on constructed times; a real trial (tiny GGUF, real GenAI) for what is stored. Counts only, never a speed."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from factories import rewind

from ov_tuner.workloads.llm.arrivals import LEAST_TIMED, CountedWindow, UserArrivals
from ov_tuner.workloads.llm.fresh import trial_in_process
from ov_tuner.workloads.llm.model_file import read_llm
from ov_tuner.workloads.llm.results_file import LlmStore
from ov_tuner.workloads.llm.schema import SCHEDULER_DEFAULT, LlmLoad


def test_a_closed_loops_window_opens_when_every_users_first_request_has_ended() -> None:
    window = CountedWindow(LlmLoad(users=3, lead_in_s=0.5, seconds=2.0), start=10.0, least=0)
    window.ended(0, 10.4)
    window.ended(1, 11.0)
    assert not window.holds(11.0) and not window.over(100.0)  # user 2's first request is still running
    window.ended(0, 11.2)  # a user's second request changes nothing
    window.ended(2, 11.5)
    assert window.holds(11.5) and window.holds(13.49) and not window.holds(11.49) and not window.holds(13.5)
    assert window.over(13.5) and not window.over(13.49)
    assert window.opened(11.5) and window.opened(100.0) and not window.opened(11.49)  # output counts to the end


def test_a_window_stays_open_past_its_seconds_until_it_has_timed_its_least_requests() -> None:
    """A low load is never judged from one request: the window closes on its count as well as its seconds."""
    window = CountedWindow(LlmLoad(users=1, lead_in_s=0.0, seconds=2.0), start=0.0, least=LEAST_TIMED)
    window.ended(0, 1.0)  # the one user's first request ends: the window opens, its seconds run to 3.0
    assert window.takes(1.5) and window.takes(2.9)
    assert not window.over(3.0)  # its seconds are over with 2 requests timed of the 4 it holds at least
    assert window.takes(4.0) and window.takes(6.0)  # past its seconds, taken until it holds 4
    assert window.over(6.0) and not window.takes(6.5) and window.timed == LEAST_TIMED


def test_a_window_opens_no_sooner_than_the_lead_in_ends() -> None:
    closed = CountedWindow(LlmLoad(users=2, lead_in_s=1.0, seconds=2.0), start=0.0, least=0)
    closed.ended(0, 0.2)
    closed.ended(1, 0.3)  # every first request ended within the lead-in
    opened = CountedWindow(LlmLoad(users=0, rate=5.0, lead_in_s=1.0, seconds=2.0), start=0.0, least=0)  # an open loop
    for window in (closed, opened):
        assert not window.holds(0.99) and window.holds(1.0) and not window.holds(3.0)


def test_users_whose_requests_are_resumed_send_none_at_the_start_and_are_not_waited_for() -> None:
    load = LlmLoad(users=3, lead_in_s=0.5, seconds=2.0)
    arrivals = UserArrivals(load, start=0.0, going={0, 1})
    assert list(arrivals.due(0.0)) == [(2, 0.0)]  # the one user without a request in flight
    partly = CountedWindow(load, start=0.0, going={0, 1})
    partly.ended(0, 0.7)
    assert not partly.holds(0.7)  # user 2's first request, sent at the start, is still running
    partly.ended(2, 1.2)
    assert partly.holds(1.2) and not partly.holds(1.19)


def test_users_resumed_reading_send_when_their_reading_is_done_and_are_not_waited_for() -> None:
    load = LlmLoad(users=3, think_ms=500, lead_in_s=0.5, seconds=2.0)
    arrivals = UserArrivals(load, start=10.0, going={0}, reading={1: 0.3})
    assert list(arrivals.due(10.0)) == [(2, 10.0)]  # user 2 is new to the load; user 1 reads for 0.3 s more
    assert arrivals.next_at() == 10.3 and list(arrivals.due(10.3)) == [(1, 10.3)]
    window = CountedWindow(load, start=10.0, going={0, 1})
    window.ended(2, 10.9)  # the one user that sent at the start
    assert window.holds(10.9) and not window.holds(10.89)
    arrivals.ended(0, 11.0)
    assert arrivals.reading(11.2) == {0: pytest.approx(0.3)}  # what a run ending at 11.2 leaves its next


def test_a_window_on_resumed_requests_alone_opens_at_the_first_to_end_after_the_lead_in() -> None:
    window = CountedWindow(LlmLoad(users=2, lead_in_s=0.5, seconds=2.0), start=0.0, going={0, 1}, least=0)
    window.ended(0, 0.3)  # within the lead-in
    assert not window.opened(0.6)
    window.ended(1, 0.8)  # the window's both ends lie where a request has just ended
    assert window.holds(0.8) and not window.holds(0.79) and window.over(2.8)


def test_a_trial_counts_what_the_server_produced_from_its_window_until_its_last_timed_request_ended(
        tiny_gguf: Path) -> None:
    load = LlmLoad(users=3, seconds=0.4, lead_in_s=0.1, prompt_tokens=(16, 24), output_tokens=(8, 8))
    trial = trial_in_process(read_llm(tiny_gguf), "CPU", SCHEDULER_DEFAULT, load)
    assert trial.ok and trial.window_requests >= trial.ttft_ms.size > 0
    # counted past the window's close, until the last request arriving in it ended
    assert trial.window_s >= load.seconds and trial.wall_s <= trial.window_s
    # every request of 8 tokens that ended in the count made them all, save those made before it opened, by the at
    # most 3 requests then in flight; what was made in it ended there, or was in flight (at most 3) at its end
    assert 8 * (trial.window_requests - 3) <= trial.window_tokens <= 8 * (trial.window_requests + 3)
    assert trial.tokens_per_s == trial.window_tokens / trial.window_s
    assert trial.requests_per_s == trial.window_requests / trial.window_s


def test_a_v10_file_keeps_the_throughput_it_measured(llm_db: Path, tmp_path: Path) -> None:
    old = tmp_path / "v10.db"
    shutil.copy(llm_db, old)
    with sqlite3.connect(old) as db:  # as ov-tuner wrote it before the counted window's figures
        for column in ("window_s", "window_tokens", "window_requests"):
            db.execute(f"ALTER TABLE llm_trials DROP COLUMN {column}")
        rewind(db, 10)
    with LlmStore(old, create=False) as store:
        trials = store.llm_trials()
    assert trials and all(t.window_s == 0 for t in trials)
    assert [t.tokens_per_s for t in trials] == pytest.approx([t.output_tokens / t.wall_s for t in trials])
    assert [t.requests_per_s for t in trials] == pytest.approx([t.ttft_ms.size / t.wall_s for t in trials])
