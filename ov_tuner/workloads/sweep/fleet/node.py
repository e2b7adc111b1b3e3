"""The task that runs on a target host: unpack the model, run the ordinary sweep, write through the keeper."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

import ray

from ov_tuner.engine.budget import TimeBudget
from ov_tuner.errors import OvTunerError
from ov_tuner.fleet.bundle import Bundle, unpack
from ov_tuner.schema import SweepSpec
from ov_tuner.store.results import ResultStore
from ov_tuner.workloads.sweep.fleet.keeper import RemoteProgress, RemoteStore
from ov_tuner.workloads.sweep.job import SweepSummary, run_sweep


@dataclass(frozen=True)
class NodeOutcome:
    """What a host's sweep ended with: its summary, or the one line that stopped it (no such device, ...)."""

    summary: SweepSummary | None
    problem: str | None = None


def sweep_here(spec: SweepSpec, bundle: Bundle, keeper: ray.actor.ActorHandle) -> NodeOutcome:
    """Sweep `spec` on this host with the bundled model. A compile cache, unless the user named a folder (then
    that folder on every host), lives in this host's temporary folder: compiled blobs belong to the machine."""
    # Ray sets OMP_NUM_THREADS=1 in its workers; a sweep measures OpenVINO as the host runs it on its own.
    os.environ.pop("OMP_NUM_THREADS", None)
    with tempfile.TemporaryDirectory(prefix="ov-tuner-fleet-") as folder:
        model, images = unpack(bundle, Path(folder))
        cache = spec.cache_dir if spec.cache_everywhere else Path(tempfile.gettempdir()) / "ov-tuner-fleet.cache"
        here = replace(spec, model=model, images=images, out=Path(folder) / "unused.db", cache_dir=cache)
        try:
            budget = None if spec.time_budget_s is None else TimeBudget(spec.time_budget_s)  # each host's own
            return NodeOutcome(run_sweep(here, RemoteProgress(keeper), store=cast(ResultStore, RemoteStore(keeper)),
                                         budget=budget))
        except OvTunerError as e:  # raised here, or by the keeper's store (then Ray wraps it: its cause says it)
            return NodeOutcome(None, str(getattr(e, "cause", e)))
