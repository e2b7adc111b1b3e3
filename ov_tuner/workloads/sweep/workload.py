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
from ov_tuner.engine.driver import Rounds, Steps
from ov_tuner.workloads.sweep.confirm import sweep_confirmation
from ov_tuner.workloads.sweep.outputs import compare_outputs
from ov_tuner.workloads.sweep.plan import PlannedSpace
from ov_tuner.workloads.sweep.search import Driver


@dataclass
class SweepWorkload:
    """One sweep while it runs: its driver over the planned spaces, and what the summary says of its phases."""

    driver: Driver
    spaces: list[PlannedSpace]
    compiler: Compiler
    search_s: float = 0.0  # the spaces' search, without the outputs' comparison
    confirmed: int = 0  # the configurations the confirmation round measured

    def search(self) -> Steps:
        started = time.perf_counter()
        try:
            for planned in self.spaces:
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
