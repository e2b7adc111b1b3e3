"""What a sweep did, worked out from what it stored: the points of its plan stored before and after, its compiles and
rounds, and how long the search and the round took. Pure."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from ov_tuner.schema import Ending, PointConfig, PointResult

# The seconds a point of the fixed-time grid a search is weighed against (`--search grid --seconds 2`, as the field
# tunes by hand, and as scripts/bench_search_sim.py and scripts/bench_search_share.py weigh it).
FIXED_GRID_S = 2.0


@dataclass(frozen=True)
class SweepSummary:
    """What a sweep did: points measured (some stopped early by smart search), failed, already stored (skipped),
    and left out (by smart search, or with a precision that did not compile or ran fp32's math); how long the search
    and the confirmation round took, and how many points a grid search of the same spaces holds."""

    out: Path
    measured: int
    failed: int
    skipped: int
    compiles: int
    interrupted: bool
    left_out: int = 0
    outpaced: int = 0
    decided: int = 0
    search_s: float = 0.0
    confirm_s: float = 0.0
    grid_size: int = 0  # the points a grid search of the same spaces holds, baselines included
    confirmed: int = 0

    warmup_s: float = 0.0  # each compiled model's warm-up

    @property
    def fixed_grid_s(self) -> float:
        """At least what a fixed-time grid of every point (`--search grid --seconds 2`) would take: FIXED_GRID_S and
        a warm-up a point, compiles left out."""
        return self.grid_size * (FIXED_GRID_S + self.warmup_s)


def summarise(out: Path, planned: Collection[PointConfig], grid_size: int, before: Sequence[PointResult],
              after: Sequence[PointResult], compiles: int, confirmed: int, search_s: float, confirm_s: float,
              interrupted: bool, warmup_s: float = 0.0) -> SweepSummary:
    """The summary of a sweep whose plan holds `planned` (the cells its search may measure and its baselines): the
    points of the file `before` and `after` it ran, the compiles it stored and the configurations its round took."""
    kept = {p.config for p in before if p.ok}
    new = [p for p in after if p.config not in kept]
    measured = [p for p in new if p.ok and p.measurement is not None]
    endings = [p.measurement.ended for p in measured if p.measurement is not None]
    skipped = sum(c in kept for c in planned)
    done = {p.config for p in new}
    left = 0 if interrupted else sum(c not in kept and c not in done for c in planned)
    return SweepSummary(out=out, measured=len(measured), failed=len(new) - len(measured), skipped=skipped,
                        compiles=compiles, interrupted=interrupted, left_out=left,
                        outpaced=endings.count(Ending.OUTPACED), decided=endings.count(Ending.DECIDED),
                        search_s=search_s, confirm_s=confirm_s, grid_size=grid_size, confirmed=confirmed,
                        warmup_s=warmup_s)
