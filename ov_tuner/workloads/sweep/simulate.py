"""The search policy against a recorded landscape: no runtime, and the very same policy the sweep drives.

A landscape holds, for every cell of a space (and each hint baseline), the windows recorded there on a
real host. A simulated measurement draws windows from a cell's recording, with replacement, until
StopRule.ending ends the run, exactly as the engine asks it after every real window; so the policy's
decisions meet the noise that host really had. The confirmation round runs through the sweep's own rounds engine
(ov_tuner.engine.rounds), each visit drawing a recorded window; the answer is the contender with the highest
FPS over its passes. Draws are independent, so the simulated round sees no shared drift to pair away: its
per-pass ratios are noisier than a real round's, and it takes more passes than a real one would.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from ov_tuner.engine.rounds import RoundLimits, run_rounds
from ov_tuner.schema import ConfirmRule, Ending, Mode, StopRule, Verdict, Window
from ov_tuner.stats.interval import pass_adjusted_means
from ov_tuner.workloads.sweep.contenders import contenders
from ov_tuner.workloads.sweep.policy import Cell, Evidence, SearchPolicy, Space

# Simulated seconds a new compiled model costs before its first point: compile, first inference, warm-up.
COMPILE_S = 0.3
# A simulated sweep hits when its answer's recorded FPS is within this fraction of the grid's best.
HIT_TOLERANCE = 0.05


@dataclass(frozen=True)
class Landscape:
    """One recorded space: every cell's windows, and the hint baselines (the cell each ran, its windows)."""

    name: str
    space: Space
    cells: dict[Cell, tuple[Window, ...]]
    baselines: tuple[tuple[Cell, tuple[Window, ...]], ...] = ()

    def fps(self, cell: Cell) -> float:
        """The recorded FPS of a cell: the mean of its windows."""
        windows = self.cells[cell]
        return sum(w.fps for w in windows) / len(windows)

    @property
    def best_fps(self) -> float:
        return max(self.fps(c) for c in self.space.cells())


@dataclass(frozen=True)
class SimulatedSweep:
    """What one simulated sweep did: its answer, the grid cells it measured, and the seconds it took."""

    answer: Cell
    measured: int
    seconds: float
    hit: bool
    endings: dict[Ending, int] = field(default_factory=dict)
    confirm_s: float = 0.0  # of `seconds`, what the confirmation round took
    visits: int = 0  # windows the confirmation round measured


def simulate(policy: SearchPolicy, landscape: Landscape, rule: StopRule, rng: np.random.Generator,
             confirm: ConfirmRule | None = ConfirmRule(), baselines: bool = True,  # noqa: B008
             confirm_rng: np.random.Generator | None = None) -> SimulatedSweep:
    """Drive `policy` over `landscape` as the sweep would: baselines, then cells until it stops, then the
    confirmation round of its contenders (unless `confirm` is None), its windows drawn with `confirm_rng` (else
    `rng`: another generator reruns the round alone after the same search)."""
    space, seconds, endings = landscape.space, 0.0, dict.fromkeys(Ending, 0)
    measured_baselines = []
    if baselines:
        for ran, recorded in landscape.baselines:
            windows, _ = _run(recorded, rule, rng, policy.baseline_verdict)
            measured_baselines.append((ran, windows))
            seconds += COMPILE_S + sum(w.seconds for w in windows)
    points: dict[Cell, tuple[Window, ...]] = {}
    compiled_streams = None
    while True:
        evidence = Evidence(dict(points), baselines=tuple(measured_baselines))
        cell = policy.next_cell(space, evidence)
        if cell is None:
            break
        if cell.streams != compiled_streams:
            seconds += COMPILE_S
            compiled_streams = cell.streams
        windows, ending = _run(landscape.cells[cell], rule, rng, partial(policy.verdict, space, evidence))
        endings[ending] += 1
        points[cell] = windows
        seconds += sum(w.seconds for w in windows)
    evidence = Evidence(points, baselines=tuple(measured_baselines))
    ranked = contenders(evidence)
    answer, confirm_s, passes = ranked[0], 0.0, 0
    if confirm is not None and len(ranked) > 1:
        pool = [landscape.cells[c] for c in ranked] + [w for _, w in landscape.baselines if baselines]
        answer_at, confirm_s, passes = _confirm(pool, len(ranked), confirm, seconds, confirm_rng or rng)
        answer = ranked[answer_at]
    hit = landscape.fps(answer) >= (1 - HIT_TOLERANCE) * landscape.best_fps
    return SimulatedSweep(answer=answer, measured=len(points), seconds=seconds + confirm_s, hit=hit,
                          endings={e: n for e, n in endings.items() if n}, confirm_s=confirm_s, visits=passes)


def _confirm(recorded: list[tuple[Window, ...]], candidates: int, rule: ConfirmRule, search_s: float,
             rng: np.random.Generator) -> tuple[int, float, int]:
    """The confirmation round over recorded windows (the first `candidates` may be deployed, the rest are the
    baselines), through the very rounds engine the sweep drives: each visit draws one of the contender's recorded
    windows and costs `rule.window_s` simulated seconds, each compile COMPILE_S. Returns the answer's position
    (the candidate with the highest pass-adjusted mean), the round's seconds and its visits."""
    clock = [len(recorded) * COMPILE_S]

    def measure(position: int, number: int) -> float:
        clock[0] += rule.window_s
        return recorded[position][int(rng.integers(len(recorded[position])))].fps

    budget_s = max(0.0, rule.budget_s(search_s, len(recorded)) - clock[0])
    limits = RoundLimits(rule.passes, max(rule.passes, rule.max_passes), budget_s)
    figures = run_rounds(measure, [i < candidates for i in range(len(recorded))], limits, clock=lambda: clock[0])
    means = pass_adjusted_means(figures)
    return int(np.argmax(means[:candidates])), clock[0], int(np.isfinite(figures).sum())


def _run(recorded: tuple[Window, ...], rule: StopRule, rng: np.random.Generator,
         verdict: Verdict) -> tuple[tuple[Window, ...], Ending]:
    """Windows drawn from a recording until the rule ends the run; a fixed-time rule runs its length."""
    windows: list[Window] = []
    elapsed = 0.0
    while True:
        window = recorded[int(rng.integers(len(recorded)))]
        window = Window(window.fps, window.median_ms, window.requests, rule.window_s)
        windows.append(window)
        elapsed += window.seconds
        if rule.fixed_s is not None:
            if elapsed >= rule.fixed_s - 1e-9:
                return tuple(windows), Ending.FIXED
            continue
        ending = rule.ending(windows, elapsed, verdict)
        if ending is not None:
            return tuple(windows), ending


def load_landscapes(path: Path, hint: Cell | None = None, max_streams: int | None = None) -> list[Landscape]:
    """Every (recorded grid, precision) of a landscape file, as written by `ov-tuner export --landscape` or in
    ../shared/data/: points with precision, mode, streams, nireq, lat_median_ms and window_fps.

    `hint`: the THROUGHPUT hint's streams x requests where the file does not record them (its baselines
    then say streams 0 x requests 0); `max_streams` likewise for the device's top of range. Explicit points are
    mode "explicit", or "grid" in files recorded before results schema v5.
    """
    data = json.loads(path.read_text())
    result = []
    for grid in data["grids"]:
        by_precision: dict[str, list[dict]] = {}
        for point in grid["points"]:
            by_precision.setdefault(point["precision"], []).append(point)
        for precision, points in sorted(by_precision.items()):
            cells = {Cell(p["streams"], p["nireq"]): _windows(p) for p in points if _explicit(p)}
            recorded_hint = next((Cell(p["streams"], p["nireq"]) for p in points
                                  if p["mode"] == "throughput" and p["streams"]), None)
            space_hint = recorded_hint or hint
            baselines = []
            for p in points:
                if not _explicit(p):
                    ran = Cell(p["streams"], p["nireq"]) if p["streams"] else (space_hint if p["mode"] == "throughput"
                                                                               else Cell(1, 1))
                    if ran is not None:
                        baselines.append((ran, _windows(p)))
            space = Space(tuple(sorted({c.streams for c in cells})), tuple(sorted({c.nireq for c in cells})),
                          data.get("host", {}).get("max_streams", max_streams), space_hint)
            result.append(Landscape(f"{path.stem} run {grid['run']} {precision}", space, cells,
                                    tuple(baselines)))
    return result


def _windows(point: dict) -> tuple[Window, ...]:
    """A recorded point's windows; each window's median latency scaled from the point's by its FPS."""
    mean = sum(point["window_fps"]) / len(point["window_fps"])
    return tuple(Window(fps, point["lat_median_ms"] * mean / fps, 0, 1.0) for fps in point["window_fps"])


def _explicit(point: dict) -> bool:
    return point["mode"] in (Mode.EXPLICIT.value, "grid")
