"""Capacity as a workload of the one driver (ov_tuner.engine.driver): compile each configuration, warm it up, and
run open-loop trials (one camera count given, or the camera search of ov_tuner.engine.cameras), each trial stored as
soon as it ends; then the open loop's own ceiling.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import openvino as ov

from ov_tuner.devices.compiler import Compiler
from ov_tuner.engine.cameras import capacity, next_cameras
from ov_tuner.engine.driver import Steps, WalksOnly
from ov_tuner.errors import BadInputError, Input
from ov_tuner.measure.engine import RequestLoop
from ov_tuner.measure.openloop import Arrivals, open_loop_ceiling, run_open_loop
from ov_tuner.schema import Arrival, CameraTarget, Capacity, DeviceInfo, LoadTrial, PointConfig, Quantization
from ov_tuner.store.results import ResultStore

# Seconds of closed-loop warm-up after the first inference, before the first trial.
WARMUP_S = 0.5


@dataclass(frozen=True)
class CapacitySpec:
    """Configurations (batch 1: each frame is one request) and the cameras' target; `cameras` given runs that many
    cameras once per configuration, None searches for the most each serves. `seconds` of arrivals are counted per
    trial, after `lead_in_s` seconds of the same load that are not. int8 runs the INT8 IR `int8` records (a sweep's,
    from its results file), else one made now (ov_tuner.deployable.irs)."""

    model: Path
    out: Path
    configs: tuple[PointConfig, ...]
    target: CameraTarget
    cameras: int | None = None
    seconds: float = 5.0
    lead_in_s: float = 1.0
    shapes: dict[str, list[int]] = field(default_factory=dict)
    int8: Quantization | None = None

    def __post_init__(self) -> None:
        batched = [c.label() for c in self.configs if c.batch != 1]
        if batched:
            raise BadInputError(f"capacity sends each camera frame as one request, so the batch must be 1 "
                                f"({batched[0]}); sweep batches with `ov-tuner sweep {Input.BATCH}`")
        if not self.configs:
            raise BadInputError(f"capacity: no configuration to run; give {Input.STREAMS} and {Input.NIREQ}, or "
                                f"{Input.FROM} a results file with measured batch-1 points")


TrialSeen = Callable[[PointConfig, LoadTrial], None]


@dataclass
class CapacityWorkload(WalksOnly):
    """Capacity on the one driver (ov_tuner.engine.driver): no search and no rounds (the configurations are
    given), a walk per configuration to the cameras it serves, or one trial at the cameras given."""

    spec: CapacitySpec
    compiler: Compiler
    devices: dict[str, DeviceInfo]
    store: ResultStore
    on_trial: TrialSeen | None
    capacities: list[Capacity] = field(default_factory=list)

    def walks(self) -> Steps:
        """Each configuration compiled and warmed up, then its trials, each stored as it ends."""
        spec = self.spec
        for config in spec.configs:
            compiled, _ = self.compiler.compile(config.compile_key, self.devices[config.device])
            with RequestLoop(compiled, config.nireq, 1) as loop:
                loop.warm_up(WARMUP_S)
            capacity_id = self.store.begin_capacity(config, spec.target, spec.cameras is None)
            trials: list[LoadTrial] = []
            self.capacities.append(Capacity(config, spec.target, spec.cameras is None, ()))
            cameras = spec.cameras or next_cameras(trials, spec.target)
            while cameras is not None:
                arrivals = Arrivals(cameras, spec.target.fps, spec.seconds, spec.target.arrival is Arrival.POISSON,
                                    seed=len(trials))
                trial = run_open_loop(compiled, config.nireq, arrivals, spec.lead_in_s)
                self.store.add_trial(capacity_id, trial)
                trials.append(trial)
                self.capacities[-1] = replace(self.capacities[-1], trials=tuple(trials))
                if self.on_trial is not None:
                    self.on_trial(config, trial)
                yield trial
                cameras = None if spec.cameras else next_cameras(trials, spec.target)
            yield from self._ceiling(compiled, config, capacity_id)
            del compiled

    def _ceiling(self, compiled: ov.CompiledModel, config: PointConfig, capacity_id: int) -> Steps:
        """The open loop's own ceiling at the cameras served (the count given), after the configuration's trials
        and only where one camera was served: so the answer can say whether ov-tuner or the device set its figure.
        A step of its own: a stop after the last trial ends the run before it."""
        run = self.capacities[-1]
        cameras = self.spec.cameras or capacity(run.trials, self.spec.target)
        if cameras < 1:
            return
        carried = open_loop_ceiling(compiled, config.nireq, cameras, self.spec.target.fps)
        self.store.record_capacity_harness(capacity_id, carried)
        self.capacities[-1] = replace(run, harness=carried)
        yield carried
