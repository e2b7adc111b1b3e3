"""Neighbours: drive the copies' workload (ov_tuner.workloads.sweep.neighbours.workload) on the one driver."""

from __future__ import annotations

from ov_tuner.engine.driver import drive
from ov_tuner.schema import NeighbourPhase
from ov_tuner.workloads.sweep.neighbours.workload import NeighboursSpec, NeighboursWorkload


def run_neighbours(spec: NeighboursSpec) -> list[NeighbourPhase]:
    """Start the copies, wait until every one is compiled and warm, then run the passes on the one driver; the
    copies end with it, Ctrl-C included."""
    workload = NeighboursWorkload(spec)
    drive(workload)
    return workload.phases
