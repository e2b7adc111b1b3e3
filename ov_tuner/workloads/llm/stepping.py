"""The load on a GenAI pipeline, step by step, as a server's scheduler meets it: each request added as it arrives,
one step of the batch at a time, every counted request timed from its arrival to its first token and to its last
(ov_tuner.workloads.llm.arrivals says when requests arrive and which are counted). What a trial is built on
(ov_tuner.workloads.llm.trial)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ov_tuner.workloads.llm.arrivals import CountedWindow, UserArrivals
from ov_tuner.workloads.llm.prefix import PrefixBlocks
from ov_tuner.workloads.llm.prompts import (
    LlmRequest,
    Requests,
)
from ov_tuner.workloads.llm.schema import LlmLoad


@dataclass
class Flight:
    """A request in flight: its number on the pipeline, when it arrived, whether it counts, its prompt and the prompt
    tokens the prefix cache answers, when its first token came and the tokens it has."""

    handle: object
    number: int
    arrived: float
    counted: bool
    user: int | None
    prompt: np.ndarray
    cached: int = 0
    first: float = math.nan
    ids: list[int] = field(default_factory=list)

    @property
    def prompt_tokens(self) -> int:
        return int(self.prompt.size)

    @property
    def tokens(self) -> int:
        return len(self.ids)


@dataclass
class Paused:
    """What a run left on a kept pipeline for the next to go on from: the users' requests in flight (none timed) and
    each user reading its last answer, with the seconds of reading it had left."""

    flights: list[Flight] = field(default_factory=list)
    reading: dict[int, float] = field(default_factory=dict)

    @property
    def users(self) -> set[int]:
        """The users it holds: a request in flight, or reading."""
        return {f.user for f in self.flights if f.user is not None} | set(self.reading)


@dataclass
class LoadTally:
    """What a load's run counted: the timed requests' latencies and tokens, and the server's output from the
    window's opening to the run's end."""

    ttft_ms: list[float] = field(default_factory=list)
    tpot_ms: list[float] = field(default_factory=list)
    output_tokens: int = 0  # the counted requests'
    prompt_tokens: int = 0
    cached_tokens: int = 0  # of the counted requests' prompt tokens, those the prefix cache answers
    first_arrival: float = math.inf
    last_end: float = 0.0
    counted_s: float = 0.0  # from the window's opening to the run's end (ov_tuner.workloads.llm.arrivals)
    window_tokens: int = 0  # every request's output tokens in counted_s
    window_requests: int = 0  # ended in counted_s
    window_steps: int = 0  # steps in counted_s
    window_prompt_tokens: int = 0  # prefilled: their request's first token came in counted_s
    window_cached_tokens: int = 0  # of those, answered by the prefix cache
    window_context_tokens: int = 0  # over those steps, the context of every request in flight


def generation(tokens: int, assistant: tuple[int, int] = (0, 0)) -> object:
    """A request's GenerationConfig: greedy, exactly `tokens` long; with speculative decoding, the tokens proposed a
    step and (prompt lookup's) the longest n-gram, as GenAI requires of every request to a pipeline built for it."""
    import openvino_genai

    config = openvino_genai.GenerationConfig(max_new_tokens=tokens, min_new_tokens=tokens, ignore_eos=True)
    if assistant[0]:
        config.num_assistant_tokens = assistant[0]
    if assistant[1]:
        config.max_ngram_size = assistant[1]
    return config


def add_request(pipe: object, number: int, request: LlmRequest, assistant: tuple[int, int]) -> object:
    """Add `request` to the pipeline as its request `number`, greedy, with the speculative decoding it was built for;
    its handle (keep it: GenAI drops a request whose handle is released)."""
    import openvino as ov

    prompt = ov.Tensor(request.prompt.reshape(1, -1))
    return pipe.add_request(number, prompt, generation(request.output_tokens, assistant))  # type: ignore[attr-defined]


def run_load(pipe: object, load: LlmLoad, requests: Requests, paused: Paused | None = None,
             prefix: PrefixBlocks | None = None,
             assistant: tuple[int, int] = (0, 0)) -> tuple[LoadTally, float, Paused]:
    """The load's arrivals, steps and endings until every counted request has ended; the tally, the highest share
    of the KV cache in use (percent) and what it left (requests in flight, none counted, and users reading: end them
    with `stop_load`, or pass them to the next run on this pipeline as `paused`). Each reply is told to `requests` (a
    conversation's next turn carries it); with `prefix` (a pipeline with prefix caching), each request's prompt
    tokens its cache answers are counted (ov_tuner.workloads.llm.prefix); `assistant`: each request's speculative
    decoding (a pipeline built for it).

    Why resume: a closed loop whose users each have a request in flight or are reading their last answer is in its
    steady state, so a trial that goes on from the last (a kept pipeline's) waits out its lead-in alone, not a wave
    of first requests sent together (ov_tuner.workloads.llm.arrivals.CountedWindow): on the demo's load that wave
    took a request's length, about as long as the counted window. A user reading sends when its reading is done, as
    it would have. A user beyond this load's count has its request ended; a user new to it sends at the start; an
    open loop resumes none."""
    import openvino_genai

    finished = openvino_genai.GenerationStatus.FINISHED
    start = time.perf_counter()
    paused = paused or Paused()
    resumed = _resumed(paused, load)
    flights = resumed.flights
    going = {f.user for f in flights if f.user is not None}
    arrivals = UserArrivals(load, start, going, resumed.reading)
    window = CountedWindow(load, start, resumed.users)
    tally, usage, pending_counted = LoadTally(), 0.0, 0
    number = max((f.number for f in paused.flights), default=0) + 1  # a request's number is its own on the pipeline
    while True:
        now = time.perf_counter()
        for user, at in list(arrivals.due(now)):
            counted = window.takes(at)
            request = requests.next(user)
            cached = 0 if prefix is None else prefix.hits(request.prompt)
            flights.append(Flight(add_request(pipe, number, request, assistant), number, at, counted, user,
                                  request.prompt, cached=cached))
            number += 1
            pending_counted += counted
            if counted:
                tally.prompt_tokens += request.prompt.size
                tally.cached_tokens += cached
                tally.first_arrival = min(tally.first_arrival, at)
        if window.over(now) and not pending_counted:
            break  # after the arrivals: every user that sends now has its request in flight, to pause
        if not pipe.has_non_finished_requests():  # type: ignore[attr-defined]
            time.sleep(max(min(arrivals.next_at() - now, 0.01), 0.0))
            continue
        pipe.step()  # type: ignore[attr-defined]
        now = time.perf_counter()
        usage = max(usage, float(pipe.get_metrics().cache_usage))  # type: ignore[attr-defined]
        counting = window.opened(now)
        if counting:  # what the step read: the weights once, and the context of every request in flight
            tally.window_steps += 1
            tally.window_context_tokens += sum(f.prompt_tokens + f.tokens for f in flights)
        for flight in list(flights):
            if flight.handle.can_read():  # type: ignore[attr-defined]
                outputs = flight.handle.read()  # type: ignore[attr-defined]
                tokens = [int(t) for output in outputs.values() for t in output.generated_ids]
                flight.ids += tokens
                tally.window_tokens += len(tokens) if counting else 0
                if math.isnan(flight.first):
                    flight.first = now
                    _prefilled(tally, flight, prefix, counting)
            if flight.handle.get_status() == finished:  # type: ignore[attr-defined]
                flights.remove(flight)
                requests.replied(flight.user, flight.ids)
                if prefix is not None:
                    prefix.hold(np.concatenate([flight.prompt, np.asarray(flight.ids, dtype=np.int64)]))
                arrivals.ended(flight.user, now)
                window.ended(flight.user, now)
                tally.window_requests += counting
                if flight.counted:
                    pending_counted -= 1
                    _count(tally, flight, now)
    tally.counted_s = now - window.opens
    return tally, usage, Paused(flights, arrivals.reading(now))


def _prefilled(tally: LoadTally, flight: Flight, prefix: PrefixBlocks | None, counting: bool) -> None:
    """A request's first token came: its prompt is in the cache for the requests after it."""
    if prefix is not None:
        prefix.hold(flight.prompt)
    if counting:
        tally.window_prompt_tokens += flight.prompt_tokens
        tally.window_cached_tokens += flight.cached


def _count(tally: LoadTally, flight: Flight, now: float) -> None:
    tally.ttft_ms.append((flight.first - flight.arrived) * 1000)
    if flight.tokens > 1:
        tally.tpot_ms.append((now - flight.first) * 1000 / (flight.tokens - 1))
    tally.output_tokens += flight.tokens
    tally.last_end = max(tally.last_end, now)


def _resumed(paused: Paused, load: LlmLoad) -> Paused:
    """The paused requests and readers of users this load has (a closed loop's), the other requests cancelled (the
    next step ends them)."""
    kept = []
    for flight in paused.flights:
        if flight.user is not None and flight.user < load.users:
            kept.append(flight)
        else:
            flight.handle.cancel()  # type: ignore[attr-defined]
    return Paused(kept, {user: left for user, left in paused.reading.items() if user < load.users})


def stop_load(pipe: object, paused: Paused) -> None:
    """End the requests a run left in flight, so the pipeline is left with nothing in flight."""
    for flight in paused.flights:
        flight.handle.cancel()  # type: ignore[attr-defined]
    while pipe.has_non_finished_requests():  # type: ignore[attr-defined]
        pipe.step()  # type: ignore[attr-defined]
