"""A soak as a workload of the one driver (ov_tuner.engine.driver): no search and no rounds (the configuration is
given), one walk: the configuration in the closed loop for a long time (minutes), in windows of a few seconds, each
window stored as it closes with its latencies, the CPU clock and what else the host ran. A hot fanless box, a turbo
budget that runs out or a neighbour that starts shows as a change along the windows (ov_tuner.analyse.drift). The walk
is one step: the closed loop runs unbroken from its first window to its last, so nothing but Ctrl-C (a
KeyboardInterrupt, once the requests in flight complete) ends it early."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import openvino as ov

from ov_tuner.engine.driver import Steps, WalksOnly
from ov_tuner.measure.engine import RequestLoop
from ov_tuner.schema import PointConfig, Quantization, SoakWindow, StopRule, Window
from ov_tuner.store.results import ResultStore

# Seconds of closed-loop warm-up after the first inference, not stored.
WARMUP_S = 1.0


@dataclass(frozen=True)
class SoakSpec:
    """One configuration for `seconds`, in windows of `window_s`; int8 runs the INT8 IR `int8` records (a sweep's),
    else one made now (ov_tuner.deployable.irs)."""

    model: Path
    out: Path
    config: PointConfig
    seconds: float = 600.0
    window_s: float = 5.0
    shapes: dict[str, list[int]] = field(default_factory=dict)
    int8: Quantization | None = None


WindowSeen = Callable[[SoakWindow], None]


@dataclass
class SoakWorkload(WalksOnly):
    """The soak of `spec`, its model `compiled`, into `store` (`soak_id`: once begun); `on_window` sees each window as
    it is stored."""

    spec: SoakSpec
    compiled: ov.CompiledModel
    store: ResultStore
    on_window: WindowSeen | None = None
    soak_id: int | None = None

    def walks(self) -> Steps:
        spec = self.spec
        soak_id = self.soak_id = self.store.begin_soak(spec.config, spec.seconds, spec.window_s)
        elapsed = 0.0

        def keep(window: Window, latencies_ms: np.ndarray) -> None:
            nonlocal elapsed
            soak_window = SoakWindow(elapsed, window, latencies_ms)
            elapsed += window.seconds
            self.store.add_soak_window(soak_id, soak_window)
            if self.on_window is not None:
                self.on_window(soak_window)

        with RequestLoop(self.compiled, spec.config.nireq, spec.config.batch) as loop:
            loop.warm_up(WARMUP_S)
            loop.run(StopRule(window_s=spec.window_s, min_window_requests=1, fixed_s=spec.seconds), on_window=keep)
        yield soak_id
