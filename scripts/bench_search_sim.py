"""The search policy against recorded landscapes: hit rate, points measured and time, new policy and old side by side.

For every recorded grid and precision (the shared 16-core landscape and this project's own 2-core one, in
tests/data), many simulated sweeps resample each point's recorded windows (ov_tuner.workloads.sweep.simulate) and
drive a policy over them, as the sweep drives it over the runtime:
- "smart": today's SmartSearch (anchors, interval decisions, confirmation round);
- "before": the rules smart search had before (ported here for comparison only: requests doubled while each
  step added 3%, streams raised while they beat the smaller counts by 3%, points outpaced by a fixed doubt;
  no anchors, no confirmation).
A sweep hits when its answer's recorded FPS is within 5% of the grid's best. "grid s" is what a fixed-time
grid of every cell takes at 2 s a point (the field's `--search grid --seconds 2`), compiles included.

With `--confirm`, the confirmation round instead, on the same sweeps (each pair seeded alike, so the search
is the same and only the round differs): 6 passes over every contender then follow-ups ("6 passes", the rule
before the sequential one) against today's ConfirmRule (3 passes, then the sequential rule): the round's share
of the sweep's simulated seconds, its windows, the hit rate, and in how many sweeps both rounds gave the same
answer.

    .venv/bin/python scripts/bench_search_sim.py [--runs 1000] [--confirm]
"""

from __future__ import annotations

import argparse
import math
from dataclasses import replace
from pathlib import Path

import numpy as np

from ov_tuner.schema import ConfirmRule, Ending, StopRule, Window
from ov_tuner.stats.evidence import Estimate
from ov_tuner.workloads.sweep.policy import Cell, Evidence, SearchPolicy, SmartSearch, Space
from ov_tuner.workloads.sweep.simulate import COMPILE_S, Landscape, load_landscapes, simulate
from ov_tuner.workloads.sweep.summary import FIXED_GRID_S

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
MIN_GAIN, FIRST_WINDOW_DOUBT = 0.03, 0.06  # the constants of the rules before


class SmartSearchBefore:
    """Smart search as it was: climb requests per stream count while each step pays, stream counts while they
    beat the smaller ones, and stop a point once its FPS so far, given a fixed doubt, is under the best."""

    def next_cell(self, space: Space, evidence: Evidence) -> Cell | None:
        fps = {c: Estimate.of(w).fps for c, w in evidence.points.items()}
        best_by_streams: list[float] = []
        for streams in space.streams:
            if len(best_by_streams) >= 2 and best_by_streams[-1] < max(best_by_streams[:-1]) * (1 + MIN_GAIN):
                return None  # the last stream count did not beat the smaller ones: stop adding streams
            group = [c for c in space.busy_cells() if c.streams == streams]
            measured = [fps[c] for c in group if c in fps]
            for cell in group:
                if evidence.tried(cell):
                    continue
                if len(measured) >= 2 and measured[-1] < max(measured[:-1]) * (1 + MIN_GAIN):
                    break  # the last request count added too little
                return cell
            if measured:
                best_by_streams.append(max(measured))
        return None

    def verdict(self, space: Space, evidence: Evidence, windows: list[Window]) -> Ending | None:
        if not evidence.points:
            return None
        best = max(Estimate.of(w).fps for w in evidence.points.values())
        n = len(windows)
        doubt = max(StopRule().tolerance, FIRST_WINDOW_DOUBT) if n == 1 else StopRule().tolerance / math.sqrt(n)
        so_far = sum(w.fps * w.seconds for w in windows) / sum(w.seconds for w in windows)
        return Ending.OUTPACED if so_far * (1 + doubt) < best else None

    def baseline_verdict(self, windows: list[Window], leader: Estimate | None = None) -> Ending | None:
        return None


def row(policy: SearchPolicy, landscape: Landscape, runs: int, confirm: bool) -> tuple[float, float, float]:
    rng = np.random.default_rng(20261122)
    rule = ConfirmRule() if confirm else None
    sims = [simulate(policy, landscape, StopRule(), rng, confirm=rule) for _ in range(runs)]
    return (float(np.mean([s.hit for s in sims])), float(np.mean([s.measured for s in sims])),
            float(np.mean([s.seconds for s in sims])))


def confirm_rows(landscapes: list[Landscape], runs: int) -> None:
    """The confirmation round before and after the sequential rule, on sweeps seeded alike."""
    rules = {"6 passes": replace(ConfirmRule(), passes=6), "sequential": ConfirmRule()}
    print(f"{runs} simulated sweeps per landscape, the same searches for both rules; over the sweeps that had a "
          "round (rounds): share, the round's part of the sweep's simulated seconds; windows, the round's; hit, "
          "the answer within 5% of the grid's best; rerun, the round rerun alone gave the same answer; same, "
          "the other rule gave the same answer")
    print(f"{'landscape':44} {'rounds':>6} | {'rule':10} {'share':>6} {'windows':>7} {'hit':>6} {'rerun':>6} | "
          f"{'same':>5}")
    for land in landscapes:
        sims, reruns = {}, {}
        for name, rule in rules.items():
            sims[name] = [simulate(SmartSearch(), land, StopRule(), np.random.default_rng(20261122 + i), rule,
                                   confirm_rng=np.random.default_rng(1 + i)) for i in range(runs)]
            reruns[name] = [simulate(SmartSearch(), land, StopRule(), np.random.default_rng(20261122 + i), rule,
                                     confirm_rng=np.random.default_rng(runs + 1 + i)) for i in range(runs)]
        had = [i for i, s in enumerate(sims["sequential"]) if s.visits]
        if not had:
            print(f"{land.name:44} {0:6} | no sweep had two contenders to confirm")
            continue
        same = np.mean([sims["6 passes"][i].answer == sims["sequential"][i].answer for i in had])
        for name, found in sims.items():
            kept = [found[i] for i in had]
            print(f"{land.name:44} {len(had):6} | {name:10} {np.mean([s.confirm_s / s.seconds for s in kept]):6.1%} "
                  f"{np.mean([s.visits for s in kept]):7.1f} {np.mean([s.hit for s in kept]):6.1%} "
                  f"{np.mean([found[i].answer == reruns[name][i].answer for i in had]):6.1%} | {same:5.0%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--confirm", action="store_true", help="compare the confirmation round's rules instead")
    args = parser.parse_args()
    landscapes = (load_landscapes(DATA / "landscape-16core-mobilenet_v2.json", Cell(16, 16), 16)
                  + load_landscapes(DATA / "landscape-2core-epyc-mobilenet_v2.json"))
    if args.confirm:
        confirm_rows(landscapes, args.runs)
        return
    print(f"{args.runs} simulated sweeps per landscape and policy; hit: the answer within 5% of the grid's best FPS")
    print(f"{'landscape':44} {'cells':>5} {'grid s':>6} | {'smart hit':>9} {'points':>6} {'sim s':>6} | "
          f"{'before hit':>10} {'points':>6} {'sim s':>6}")
    for land in landscapes:
        cells = len(land.space.cells())
        grid_s = cells * FIXED_GRID_S + len(land.space.streams) * COMPILE_S
        new = row(SmartSearch(), land, args.runs, confirm=True)
        old = row(SmartSearchBefore(), land, args.runs, confirm=False)
        print(f"{land.name:44} {cells:5} {grid_s:6.0f} | {new[0]:9.1%} {new[1]:6.1f} {new[2]:6.1f} | "
              f"{old[0]:10.1%} {old[1]:6.1f} {old[2]:6.1f}")


if __name__ == "__main__":
    main()
