"""The sweep as a workload of the one driver (ov_tuner.engine.driver): its search is every space's baselines and
what its policy proposes, point after point (ov_tuner.workloads.sweep.search), then the outputs compared with FP32's
where asked for; its rounds are the confirmation round (ov_tuner.workloads.sweep.confirm); it has no walk.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ov_tuner.devices.compiler import Compiler
from ov_tuner.engine.budget import PhasePlan
from ov_tuner.engine.driver import Rounds, Steps
from ov_tuner.workloads.sweep.confirm import sweep_confirmation
from ov_tuner.workloads.sweep.outputs import compare_outputs
from ov_tuner.workloads.sweep.plan import PlannedSpace, search_order
from ov_tuner.workloads.sweep.search import Driver

# For a plan (not a limit): the contenders a confirmation round holds as a rule (the best few and the baselines).
CONFIRM_CONTENDERS = 6


@dataclass
class SweepWorkload:
    """One sweep while it runs: its driver over the planned spaces, and what the summary says of its phases."""

    driver: Driver
    spaces: list[PlannedSpace]
    compiler: Compiler
    search_s: float = 0.0  # the spaces' search, without the outputs' comparison
    confirmed: int = 0  # the configurations the confirmation round measured

    def planned(self) -> tuple[PhasePlan, PhasePlan, PhasePlan]:
        """The steps each phase has left, for the driver's plan and time budget: the points the search may still
        measure; the confirmation round's visits (its contenders in every pass at most; its first passes decide
        anything), each a share of a point (one short window against a point's compile and settling windows); no
        walk."""
        run = self.driver
        points = len(run.planned - run.stored.keys() - run.tried)
        rule = run.spec.confirm
        if rule is None or run.store.confirmations():
            return PhasePlan("search", points), PhasePlan("rounds", 0), PhasePlan("walks", 0)
        stop = run.spec.stop
        visit_share = rule.window_s / max(stop.fixed_s or stop.window_s * stop.settle_windows, rule.window_s)
        return (PhasePlan("search", points),
                PhasePlan("rounds", CONFIRM_CONTENDERS * rule.max_passes, CONFIRM_CONTENDERS * rule.passes,
                          visit_share),
                PhasePlan("walks", 0))

    def search(self) -> Steps:
        started = time.perf_counter()
        try:
            for planned in search_order(self.spaces):
                yield from self.driver.search(planned)
        finally:
            self.search_s = time.perf_counter() - started
        run = self.driver
        if run.spec.accuracy_inputs:
            compare_outputs(self.compiler, run.store, run.progress, run.data, spaces=self.spaces,
                            inputs=run.spec.accuracy_inputs, skipped=run.abandoned, stop=run.stop)

    @contextmanager
    def rounds(self) -> Iterator[Rounds | None]:
        run = self.driver
        if run.spec.confirm is None:
            yield None
            return
        with sweep_confirmation(self.compiler, run.store, run.progress, list(run.stored.values()),
                                spaces=self.spaces, rule=run.spec.confirm, data=run.data,
                                warmup_s=run.spec.warmup_s) as rounds:
            self.confirmed = 0 if rounds is None else len(rounds.candidates)
            yield rounds

    def walks(self) -> Steps:
        yield from ()
