"""When an LLM trial's requests arrive: a closed loop's users, or an open loop's schedule at a rate."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator

from ov_tuner.measure.openloop import Arrivals
from ov_tuner.schema import Arrival
from ov_tuner.workloads.llm.schema import LlmLoad


class UserArrivals:
    """When requests arrive: users that send again `think_s` after their answer (closed loop), or times drawn at a
    rate (open loop, Poisson or evenly spaced)."""

    def __init__(self, load: LlmLoad, start: float) -> None:
        self.think_s = load.think_ms / 1000
        self.ready = {user: start for user in range(load.users)}  # closed loop: when each idle user sends
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

    def next_at(self) -> float:
        return min([*self.ready.values(), self.times[0] if self.times else math.inf])
