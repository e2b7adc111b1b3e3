"""The search policy: which configuration to measure next, and when a point being measured has said enough.

Pure: it never imports the runtime. The sweep drives a policy against OpenVINO; the simulator
(ov_tuner.workloads.sweep.simulate) drives the very same policy against recorded landscapes, so what the
simulator proves is what the sweep does.

One policy instance searches one space: a device, precision, batch and input mode, over streams x
requests. GridSearch measures every cell. SmartSearch, the default:

1. Anchors at both ends: the THROUGHPUT hint's own streams x requests, and the top of the device's
   stream range with requests = streams and 2 x streams. On a many-core host these bound where the top
   can be, so a noisy step low in the landscape cannot stop the search far from it.
2. A climb that noise cannot fool: every unmeasured neighbour (one step in streams, requests or both) of
   every contender is measured, where a contender is any point not clearly worse than the best. Clearly
   worse is decided by intervals (ov_tuner.stats.evidence), so an inconclusive comparison keeps a point
   a contender and the climb goes on past it; a point whose windows disagree wildly has a wide interval
   and so stays a contender.
3. Consistency: when a hint baseline beats the best point beyond noise, its streams x requests is
   measured and climbed from, if the space holds it; otherwise the analysis says the space missed it.

Each point ends as soon as its decision is made: OUTPACED once it is clearly worse than the best, here or in
another precision's space searched before (the search visits the precision expected fastest first, so the others'
points are judged against its best from their first window), and, when a confirmation round follows, DECIDED once
it has DECISION_WINDOWS windows: the round measures every contender again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from ov_tuner.schema import Ending, Window, cell_text
from ov_tuner.stats.evidence import Estimate, clearly_worse

# A point ends as DECIDED (when a confirmation round follows) once it has this many windows, however wide its
# interval: the round measures every contender again, interleaved, where pairs cancel the host's drift, while more
# windows here only measure that drift again (on a 2-core EPYC, 1 s windows of MobileNet-v2 spread 10% and more, and
# a point waited for its 10 s cap). A wide interval keeps a point a contender, so noise makes the climb go on, never
# stop early.
DECISION_WINDOWS = 2


@dataclass(frozen=True, order=True)
class Cell:
    """A streams x requests configuration of a space."""

    streams: int
    nireq: int

    def __str__(self) -> str:
        return cell_text(self.streams, self.nireq)


@dataclass(frozen=True)
class Space:
    """The streams and request counts one search may measure, and what the device says about them.

    `max_streams` is the device's top of range (RANGE_FOR_STREAMS), `hint` the streams x requests OpenVINO
    picks under PERFORMANCE_HINT=THROUGHPUT, each None where unknown.
    """

    streams: tuple[int, ...]
    nireqs: tuple[int, ...]
    max_streams: int | None = None
    hint: Cell | None = None

    def cells(self) -> list[Cell]:
        """Every cell, streams then requests ascending."""
        return [Cell(s, n) for s in self.streams for n in self.nireqs]

    def busy_cells(self) -> list[Cell]:
        """The cells that keep every stream busy (requests >= streams); for a stream count no request count
        covers, the most requests there are. Fewer requests than streams leave streams idle."""
        cells = []
        for s in self.streams:
            busy = [n for n in self.nireqs if n >= s] or [max(self.nireqs)]
            cells += [Cell(s, n) for n in busy]
        return cells

    def neighbours(self, cell: Cell) -> list[Cell]:
        """The busy cells one step away in streams, requests or both."""
        if cell.streams not in self.streams or cell.nireq not in self.nireqs:
            return []
        i, j = self.streams.index(cell.streams), self.nireqs.index(cell.nireq)
        around = {Cell(self.streams[a], self.nireqs[b])
                  for a in (i - 1, i, i + 1) for b in (j - 1, j, j + 1)
                  if 0 <= a < len(self.streams) and 0 <= b < len(self.nireqs)} - {cell}
        return sorted(around & set(self.busy_cells()), reverse=True)


@dataclass(frozen=True)
class Evidence:
    """What has been measured in a space: explicit points by cell, failed cells, and the hint baselines with the
    streams x requests each ran."""

    points: Mapping[Cell, tuple[Window, ...]]
    failed: frozenset[Cell] = frozenset()
    baselines: tuple[tuple[Cell, tuple[Window, ...]], ...] = ()
    elsewhere: Estimate | None = None  # the best point of the device's other spaces at this batch, where measured

    def tried(self, cell: Cell) -> bool:
        return cell in self.points or cell in self.failed

    def estimates(self) -> dict[Cell, Estimate]:
        return {cell: Estimate.of(windows) for cell, windows in self.points.items() if windows}

    def best(self) -> tuple[Cell, Estimate] | None:
        """The explicit point with the highest FPS estimate; a tie goes to the smaller configuration."""
        ranked = sorted(self.estimates().items(), key=lambda kv: (-kv[1].fps, kv[0]))
        return ranked[0] if ranked else None

    def leader(self) -> Estimate | None:
        """What every point is judged against: this space's best, or the best elsewhere where that is faster."""
        best = self.best()
        known = [e for e in (best[1] if best is not None else None, self.elsewhere) if e is not None]
        return max(known, key=lambda e: e.fps, default=None)

    def contenders(self) -> list[Cell]:
        """Grid points not clearly worse than the leader, best first: none where another precision's best is
        clearly faster than all of them."""
        leader = self.leader()
        estimates = self.estimates()
        if leader is None or not estimates:
            return []
        alive = [c for c, e in estimates.items() if not clearly_worse(e, leader)]
        return sorted(alive, key=lambda c: -estimates[c].fps)


class SearchPolicy(Protocol):
    """Proposes the next cell to measure (None: the search is done) and ends points, and baselines, early."""

    def next_cell(self, space: Space, evidence: Evidence) -> Cell | None: ...

    def verdict(self, space: Space, evidence: Evidence, windows: list[Window]) -> Ending | None: ...

    def baseline_verdict(self, windows: list[Window], leader: Estimate | None = None) -> Ending | None: ...


class GridSearch:
    """Every cell of the space, streams then requests ascending, each measured until it settles or the cap."""

    def next_cell(self, space: Space, evidence: Evidence) -> Cell | None:
        return next((c for c in space.cells() if not evidence.tried(c)), None)

    def verdict(self, space: Space, evidence: Evidence, windows: list[Window]) -> Ending | None:
        return None

    def baseline_verdict(self, windows: list[Window], leader: Estimate | None = None) -> Ending | None:
        return None


@dataclass(frozen=True)
class SmartSearch:
    """Anchors at both ends, then a noise-aware climb over contenders (see the module's docstring).

    `confirming`: a confirmation round follows, so a contender may end as DECIDED before it settles.
    """

    confirming: bool = True

    def anchors(self, space: Space) -> list[Cell]:
        """The THROUGHPUT hint's streams x requests and the top of the stream range at 1x and 2x requests,
        where the space holds them. A virtual device's space (streams 0: its hint chooses them) is anchored at
        the request count its hint calls optimal and at the most requests."""
        top = max(space.streams)
        cells = [space.hint] if space.hint is not None else []
        if top == 0:
            cells.append(Cell(0, max(space.nireqs)))
        else:
            cells += [Cell(top, _at_least(space.nireqs, top)), Cell(top, _at_least(space.nireqs, 2 * top))]
        busy = set(space.busy_cells())
        return [c for c in dict.fromkeys(cells) if c in busy]

    def next_cell(self, space: Space, evidence: Evidence) -> Cell | None:
        for cell in self.anchors(space):
            if not evidence.tried(cell):
                return cell
        if evidence.best() is None:  # every anchor failed: start from the smallest cell that keeps streams busy
            return next((c for c in space.busy_cells() if not evidence.tried(c)), None)
        for contender in evidence.contenders():
            for cell in space.neighbours(contender):
                if not evidence.tried(cell):
                    return cell
        return self._consistency(space, evidence)

    def _consistency(self, space: Space, evidence: Evidence) -> Cell | None:
        """A hint baseline that beats the best point beyond noise sends the search to its own configuration."""
        best = evidence.best()
        assert best is not None
        for cell, windows in evidence.baselines:
            if windows and clearly_worse(best[1], Estimate.of(windows)) and cell in space.busy_cells() \
                    and not evidence.tried(cell):
                return cell
        return None

    def verdict(self, space: Space, evidence: Evidence, windows: list[Window]) -> Ending | None:
        leader = evidence.leader()
        if leader is not None and clearly_worse(Estimate.of(windows), leader):
            return Ending.OUTPACED
        return self.baseline_verdict(windows)

    def baseline_verdict(self, windows: list[Window], leader: Estimate | None = None) -> Ending | None:
        """A hint baseline is never outpaced (it is a reference, not a candidate) but, when a confirmation round
        follows (which measures it again), it is DECIDED after DECISION_WINDOWS windows, as a point is, or as soon as
        it is clearly worse than the `leader` found so far: it then cannot send the search anywhere."""
        if not self.confirming:
            return None
        estimate = Estimate.of(windows)
        if estimate.windows >= DECISION_WINDOWS or (leader is not None and clearly_worse(estimate, leader)):
            return Ending.DECIDED
        return None


def _at_least(values: tuple[int, ...], wanted: int) -> int:
    """The smallest value >= `wanted`, else the largest there is."""
    return next((v for v in values if v >= wanted), max(values))
