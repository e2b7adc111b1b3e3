"""The confirmation round's plan: which points to measure again head to head. Pure.

Points measured minutes apart differ by the host's drift as much as by their configuration, so the
search's best is only a candidate. The round measures the contenders interleaved, each compiled model
kept alive, in passes that pair them and that stop for a contender once it is decided
(ov_tuner.engine.rounds); ov_tuner.stats.headtohead turns the passes into ratios with intervals.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ov_tuner.schema import Mode, PointConfig, PointResult
from ov_tuner.schema.results import twin_of
from ov_tuner.stats.evidence import Estimate, clearly_worse
from ov_tuner.workloads.sweep.policy import Cell, Evidence

if TYPE_CHECKING:
    from ov_tuner.workloads.sweep.plan import PlannedSpace

# Per device, precision and batch: the best point and at most this many in all that are not clearly
# worse than it. The hint baselines and the best of every precision come on top.
MAX_CONTENDERS = 4


def contenders(evidence: Evidence) -> list[Cell]:
    """The explicit points of one space worth confirming: the best and those not clearly worse than it."""
    return evidence.contenders()[:MAX_CONTENDERS]


def space_evidence(points: Iterable[PointResult], planned: PlannedSpace) -> Evidence:
    """What the stored points of one space say, as the policy sees it."""
    cells: dict[Cell, tuple] = {}
    baselines = []
    for p in points:
        if not (p.ok and planned.owns(p.config)) or p.measurement is None:
            continue
        if p.config.explicit:
            cells[Cell(p.config.streams, p.config.nireq)] = p.measurement.windows
        else:
            baselines.append((Cell(p.streams, p.nireq), p.measurement.windows))
    return Evidence(cells, baselines=tuple(baselines))


@dataclass(frozen=True)
class ConfirmPlan:
    """The configurations a round measures, and which of them are twins (references, not candidates)."""

    configs: list[PointConfig]
    twins: frozenset[PointConfig]


def plan_confirmation(points: list[PointResult], spaces: list[PlannedSpace]) -> ConfirmPlan:
    """The configurations to confirm head to head: per device (with its --set properties), precision and batch,
    the best and at most MAX_CONTENDERS in all that are not clearly worse than it (a virtual device's hints
    compete with one another here); the stored hint baselines and "OpenVINO default"; and each baseline's
    *twin*, the explicit configuration of the streams and requests it ran, where the hint may set more than
    streams (see `twins`).

    A precision whose best is clearly behind another's on the same device and batch sends only that best (the
    precisions' ratios are stated head to head): its other contenders and its hint baselines cannot be the answer
    nor what the answer is compared with, and a round that carries them only narrows every visit's window."""
    chosen: list[PointConfig] = []
    for planned in spaces:
        evidence = space_evidence(points, planned)
        chosen += [planned.config(cell) for cell in contenders(evidence)]
    groups: dict[tuple, list[PointConfig]] = {}
    for config in dict.fromkeys(chosen):
        groups.setdefault(_group(config), []).append(config)
    windows = {p.config: p.measurement.windows for p in points if p.ok and p.measurement is not None}
    estimates = {c: Estimate.of(windows[c]) for members in groups.values() for c in members}
    bests = {key: max((estimates[c] for c in members), key=lambda e: e.fps) for key, members in groups.items()}
    kept: list[PointConfig] = []
    behind: set[tuple] = set()
    for key, members in groups.items():
        best = bests[key]
        alive = sorted((c for c in members if not clearly_worse(estimates[c], best)), key=lambda c: -estimates[c].fps)
        if any(clearly_worse(best, rival) for other, rival in bests.items() if _rivals(key, other)):
            behind.add(key)
            alive = alive[:1]
        kept += alive[:MAX_CONTENDERS]
    defaults = {s.default_baseline() for s in spaces if s.hosts_default}
    owned = {p.config for p in points if any(s.owns(p.config) for s in spaces) and _group(p.config) not in behind}
    baselines = [p for p in points if p.ok and not p.config.explicit and (p.config in defaults or p.config in owned)]
    stored = {p.config for p in points if p.ok}
    spelled_out = [twin_of(p) for p in baselines if twin_of(p) in stored]
    chosen = list(dict.fromkeys(kept + spelled_out + [p.config for p in baselines]))
    references = [twin_of(p) for p in baselines if _may_set_more(p) and twin_of(p) not in chosen]
    return ConfirmPlan(chosen + references, frozenset(references))


def _group(config: PointConfig) -> tuple:
    """The contenders that compete with one another: one device with its --set properties, precision, batch and
    input mode."""
    return (config.device, config.settings, config.precision, config.batch, config.input_mode)


def _rivals(key: tuple, other: tuple) -> bool:
    """Another precision on the same device, batch and input mode: a group clearly behind it is not deployed."""
    device, _, precision, batch, input_mode = key
    return other[0] == device and other[2] != precision and other[3:] == (batch, input_mode)


def _may_set_more(baseline: PointResult) -> bool:
    """Whether a hint's compile may differ from its explicit twin's in more than streams and requests: the LATENCY
    hint (an explicit point runs under THROUGHPUT, which decides whether SMT siblings are used) and an auto-batched
    THROUGHPUT hint. Then the twin is measured beside it even where the search did not, as a reference."""
    c = baseline.config
    return c.mode is Mode.LATENCY or (c.mode is Mode.THROUGHPUT and baseline.compile is not None
                                      and baseline.compile.auto_batched)
