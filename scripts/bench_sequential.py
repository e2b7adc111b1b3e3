"""The rounds' sequential rule on A/A comparisons drawn from recorded windows: how often it calls a difference that
is not there, with the 5% spent over its looks (today's rule) and with a 95% interval at every look (the rule
before), and how many passes a comparison took against a fixed number of passes.

Each comparison pairs two contenders whose every figure is drawn (with replacement) from the same recorded point's
windows (data/landscape-16core-mobilenet_v2.json: two 16-core grids, each point's per-window FPS), times a drift
that a pass shares between them (drawn from the spread of a point's windows, so the host's drift meets both
alike, as the rounds' paired passes assume). It passes through the rule as a round does: every contender the first
passes, then a look after each pass; a look that tells the two apart ends it as a difference (false: they are
alike), one that finds them within the tie band ends it as alike, and the last pass's look is final. With `--gap`,
the second contender's figures are scaled by 1 - gap instead (a real difference): how often and how soon it is found.

    .venv/bin/python scripts/bench_sequential.py [--comparisons 4000] [--gap 0.1]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from ov_tuner.engine.rounds import STOP_CONFIDENCE, RoundLimits
from ov_tuner.stats.headtohead import RERUN_SD, TIE_MARGIN
from ov_tuner.stats.interval import paired_interval

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "landscape-16core-mobilenet_v2.json"
# The rounds of each workload: the sweep's confirmation (3 then up to 20 passes), the LLM's (3 then 4), the pipeline's
# (3 then 5).
ROUNDS = {"sweep": RoundLimits(3, 20), "llm": RoundLimits(3, 4), "pipeline": RoundLimits(3, 5)}


def recorded_windows() -> list[np.ndarray]:
    """Every recorded point's window FPS with at least three windows."""
    grids = json.loads(DATA.read_text())["grids"]
    return [np.asarray(p["window_fps"], dtype=float) for g in grids for p in g["points"]
            if len(p.get("window_fps") or ()) >= 3]


def compare(windows: np.ndarray, limits: RoundLimits, confidence: float, gap: float,
            rng: np.random.Generator) -> tuple[bool, bool, int]:
    """One comparison: (a difference called by the rule, a difference in the stated interval, passes taken)."""
    spread = float(np.std(np.log(windows), ddof=1)) if windows.size > 1 else 0.0
    a, b = [], []
    for number in range(limits.max_passes):
        drift = float(np.exp(rng.normal(0.0, spread)))  # what the host did in this pass, met by both
        a.append(rng.choice(windows) * drift)
        b.append(rng.choice(windows) * drift * (1 - gap))
        passes = number + 1
        if passes < limits.min_passes:
            continue
        found = paired_interval(np.asarray(b), np.asarray(a), confidence, log=True)
        clear = found.low > 1 or found.high < 1
        tied = found.low >= 1 - TIE_MARGIN and found.high <= 1 + TIE_MARGIN
        if clear or tied or passes == limits.max_passes:
            stated = paired_interval(np.asarray(b), np.asarray(a), STOP_CONFIDENCE, log=True, rerun_sd=RERUN_SD)
            return clear, stated.low > 1 or stated.high < 1, passes
    raise AssertionError("the last pass always decides")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--comparisons", type=int, default=4000)
    parser.add_argument("--gap", type=float, default=0.0, help="a real difference (0: A/A)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    points = recorded_windows()
    print(f"{len(points)} recorded points; {args.comparisons} comparisons per row; gap {args.gap:.0%}")
    print("rounds   | rule                  | called a difference | stated interval excludes 1 | passes (mean) "
          "| fixed passes")
    for name, limits in ROUNDS.items():
        for rule, confidence in (("spent over the looks", limits.look_confidence), ("95% at every look", 0.95)):
            rng = np.random.default_rng(args.seed)
            found = [compare(points[rng.integers(len(points))], limits, confidence, args.gap, rng)
                     for _ in range(args.comparisons)]
            called, stated, passes = (np.mean([f[i] for f in found]) for i in range(3))
            print(f"{name:8} | {rule:21} | {called:19.1%} | {stated:26.1%} | {passes:13.2f} | {limits.max_passes}")


if __name__ == "__main__":
    main()
