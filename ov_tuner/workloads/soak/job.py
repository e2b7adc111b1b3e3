"""A soak: one configuration in the closed loop for a long time (minutes), in windows of a few seconds, each window
stored as it closes with its latencies, the CPU clock and what else the host ran. A hot fanless box, a turbo
budget that runs out or a neighbour that starts shows as a change along the windows (ov_tuner.analyse.drift).

Ctrl-C (KeyboardInterrupt) ends it: every window already closed is on disk, and the requests in flight complete
before the exception goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ov_tuner.analyse.drift import SoakDrift, soak_drift
from ov_tuner.deployable import SWEEP_WRITER
from ov_tuner.deployable.irs import Quantizing, job_compiler
from ov_tuner.devices.environment import environment
from ov_tuner.devices.modelfile import model_files, open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.measure.engine import RequestLoop
from ov_tuner.schema import Environment, PointConfig, Quantization, SoakWindow, StopRule, Window
from ov_tuner.store.destinations import results_file
from ov_tuner.store.results import ResultStore, load_results

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


def run_soak(spec: SoakSpec, on_window: WindowSeen | None = None, quantizing: Quantizing | None = None) -> int:
    """Run the soak, storing each window as it closes; returns the soak's id in the results file. `quantizing` is
    told when NNCF starts making the INT8 IR."""
    results_file(spec.out, inputs=model_files(spec.model))
    runtime = Runtime()
    (device,) = runtime.resolve_devices((spec.config.device,))
    source = open_model_source(spec.model)
    compiler = job_compiler(runtime, source, spec.int8, spec.shapes, quantizing)
    compiled, _ = compiler.compile(spec.config.compile_key, device)
    with ResultStore(spec.out) as store:
        store.claim(environment(source), SWEEP_WRITER)
        soak_id = store.begin_soak(spec.config, spec.seconds, spec.window_s)
        elapsed = 0.0

        def keep(window: Window, latencies_ms: np.ndarray) -> None:
            nonlocal elapsed
            soak_window = SoakWindow(elapsed, window, latencies_ms)
            elapsed += window.seconds
            store.add_soak_window(soak_id, soak_window)
            if on_window is not None:
                on_window(soak_window)

        with RequestLoop(compiled, spec.config.nireq, spec.config.batch) as loop:
            loop.warm_up(WARMUP_S)
            loop.run(StopRule(window_s=spec.window_s, min_window_requests=1, fixed_s=spec.seconds), on_window=keep)
    del compiled
    return soak_id


def latest_soak(results: Path) -> tuple[SoakDrift, Environment] | None:
    """The latest soak in `results`, what the drift analysis finds along it and the environment it ran in; None where
    no soak began (stopped before its first window)."""
    stored = load_results(results)
    return (soak_drift(stored.soaks[-1]), stored.environment) if stored.soaks else None
