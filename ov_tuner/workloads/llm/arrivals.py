"""When an LLM trial's requests arrive: a closed loop's users, or an open loop's schedule at a rate."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Collection, Iterator, Mapping

from ov_tuner.measure.openloop import Arrivals
from ov_tuner.schema import Arrival
from ov_tuner.workloads.llm.schema import LlmLoad


class UserArrivals:
    """When requests arrive: users that send again `think_s` after their answer (closed loop), or times drawn at a
    rate (open loop, Poisson or evenly spaced). `going`: the users whose request is already in flight (resumed from
    the pipeline's last trial); `reading`: users resumed reading their last answer, and the seconds of it they had
    left; the others send at the start."""

    def __init__(self, load: LlmLoad, start: float, going: Collection[int] = (),
                 reading: Mapping[int, float] | None = None) -> None:
        self.think_s = load.think_ms / 1000
        reading = reading or {}
        # closed loop: when each idle user sends
        self.ready = {user: start + reading.get(user, 0.0) for user in range(load.users) if user not in going}
        self.times: deque[float] = deque()
        if not load.closed:
            # the open loop's schedule, made as a camera's (one source at the rate), long enough to go on arriving
            # until the drain ends
            schedule = Arrivals(cameras=1, fps=load.rate, seconds=load.lead_in_s + load.seconds * 4 + 60,
                                poisson=load.arrival is Arrival.POISSON, seed=load.seed)
            self.times = deque(start + schedule.times())

    def due(self, now: float) -> Iterator[tuple[int | None, float]]:
        """The requests that arrive by `now`: the user that sends it (None in an open loop) and when."""
        for user, at in list(self.ready.items()):
            if at <= now:
                del self.ready[user]
                yield user, now
        while self.times and self.times[0] <= now:
            yield None, self.times.popleft()

    def ended(self, user: int | None, now: float) -> None:
        if user is not None:
            self.ready[user] = now + self.think_s

    def reading(self, now: float) -> dict[int, float]:
        """The users that have yet to send their next request, and the seconds until each does (a closed loop's)."""
        return {user: max(at - now, 0.0) for user, at in self.ready.items()}

    def next_at(self) -> float:
        return min([*self.ready.values(), self.times[0] if self.times else math.inf])


# The fewest timed requests a window holds, however long that takes. A window's verdict (the budget met or not, at a
# latency percentile) is read from its requests: at one user a 2 s window held one or two on a slow host, so its p90
# was one request's figure and paired verdicts at that load spanned -59..+119%. With four, the p90 lies between the
# two slowest, and a window speaks for more than one turn of one conversation.
LEAST_TIMED = 4


class CountedWindow:
    """The `seconds` of a trial whose arrivals are timed; from its opening to the trial's end, what the server
    produced is counted.

    It opens once the lead-in is over and, in a closed loop, once the first request of every user that sent it at the
    start has ended: until then the server runs one wave of requests begun together, not the load's steady state. A user
    resumed from the pipeline's last trial (`going`: its request in flight, or reading its last answer) sent none at the
    start; where every user was, the server is in its steady state from the start, and the window opens at the first
    request to end once the lead-in is over. Throughput is every request's output tokens (and the requests ended) from
    the opening until the last timed request has ended, the load going on throughout, over that time. Both ends lie
    where a request has just ended, so where requests run in lockstep (one length, every prompt in one step) the count
    holds whole cycles; ending the count at the window's close instead counted a cycle's costly prefill step more often
    than it comes (the window opens just before one), and read SmolLM2 12% under GenAI's own `generate()` on one
    pipeline with 4 s windows (scripts/bench_llm.py, docs/llm.md). Counting only the timed requests' output, over the
    time from the first to arrive to the last to end, stretches the divisor by a request's length: on the demo's model
    at 64 users, where a request took about 2 s, that read 942-965 tokens/s over a 2 s window against 2090-2118 over
    an 8 s one.

    A window also holds at least `least` timed requests (LEAST_TIMED): it stays open past its seconds until that
    many have arrived, as MLPerf LoadGen sets a minimum query count beside its minimum duration."""

    def __init__(self, load: LlmLoad, start: float, going: Collection[int] = (), least: int = LEAST_TIMED) -> None:
        self.seconds, self.least, self.timed = load.seconds, least, 0
        self.lead_in_ends = start + load.lead_in_s
        # closed loop: the users whose first request, sent at the start, has not ended
        self.waiting = set(range(load.users)) - set(going)
        self.opens = math.inf if load.closed else self.lead_in_ends

    def ended(self, user: int | None, now: float) -> None:
        """A request of `user` ended at `now` (None: an open loop's)."""
        was_waiting = user in self.waiting
        if was_waiting:
            self.waiting.discard(user)
        if math.isinf(self.opens) and not self.waiting and (was_waiting or now >= self.lead_in_ends):
            self.opens = max(self.lead_in_ends, now)

    def holds(self, at: float) -> bool:
        """Whether a request arriving `at` is timed: in the window's seconds, or after them while it has timed fewer
        than its least."""
        return self.opens <= at and (at < self.opens + self.seconds or self.timed < self.least)

    def takes(self, at: float) -> bool:
        """Whether a request arriving `at` is timed, counting it where it is."""
        timed = self.holds(at)
        self.timed += timed
        return timed

    def opened(self, at: float) -> bool:
        """Whether what the server produces `at` counts: from the window's opening to the trial's end."""
        return self.opens <= at

    def over(self, now: float) -> bool:
        return now >= self.opens + self.seconds and self.timed >= self.least
