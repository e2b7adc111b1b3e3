"""The sweep's smart search and its confirmation round against a fixed-time grid of the same space, run by turns.

Each pair runs the demo's sweep twice into fresh results files, in alternating order: as a grid with a fixed time a
point and no round (`--search grid --seconds 2 --no-confirm`, as the field tunes by hand), and as ov-tuner runs by
default (smart search, then the confirmation round). Each run's search and round seconds are read from its summary
lines; the share is the smart run's search and round against the grid's search, pair by pair. The comparisons the
smart run's answer told apart (its gains over the baselines) come beside. Run by hand where the demo has run (its
model and photos are used; the INT8 IR comes from the cache after the first run); about 1.5 minutes a pair.

    .venv/bin/python scripts/bench_search_share.py [--pairs 3]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
from pathlib import Path

from ov_tuner.workloads.sweep.summary import FIXED_GRID_S

ROOT = Path(__file__).resolve().parent.parent
TOOL = str(ROOT / ".venv" / "bin" / "ov-tuner")
SPACE = ["sweep", "models/mobilenet_v2.xml", "--precision", "auto,int8", "--images", "results/photos", "--streams",
         "auto", "--nireq", "auto", "--batch", "1"]
GRID = ["--search", "grid", "--seconds", f"{FIXED_GRID_S:g}", "--no-confirm"]
SEARCH = re.compile(r"the search took (\d+) s for (\d+) of (\d+) points")
ROUND = re.compile(r"the confirmation round measured (\d+) configurations head to head in (\d+) s")


def run(extra: list[str], out: Path) -> tuple[str, list[str]]:
    done = subprocess.run([TOOL, *SPACE, "--out", str(out), *extra], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the sweep failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout, extra


def told_apart(out: Path) -> str:
    shown = subprocess.run([TOOL, "recommend", str(out), "--format", "json"], cwd=ROOT, capture_output=True, text=True)
    gains = json.loads(shown.stdout).get("gains", [])
    return f"{sum(bool(g.get('measurable')) for g in gains)} of {len(gains)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    print("| pair | order | grid: search s (points) | smart: search s (points) | round s (configurations) | share | "
          "gains told apart |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    shares = []
    with tempfile.TemporaryDirectory() as folder:
        for pair in range(args.pairs):
            grid_out, smart_out = Path(folder) / f"grid{pair}.db", Path(folder) / f"smart{pair}.db"
            order = [(GRID, grid_out), ([], smart_out)]
            if pair % 2:
                order.reverse()
            said = {tuple(extra): text for text, extra in (run(extra, out) for extra, out in order)}
            grid, smart = SEARCH.search(said[tuple(GRID)]), SEARCH.search(said[()])
            confirmed = ROUND.search(said[()])
            assert grid is not None and smart is not None and confirmed is not None
            share = (int(smart[1]) + int(confirmed[2])) / int(grid[1])
            shares.append(share)
            first = "grid first" if pair % 2 == 0 else "smart first"
            print(f"| {pair + 1} | {first} | {grid[1]} ({grid[2]}) | {smart[1]} ({smart[2]}) | {confirmed[2]} "
                  f"({confirmed[1]}) | {share:.0%} | {told_apart(smart_out)} |")
    print(f"\nmean share {sum(shares) / len(shares):.0%}, the most {max(shares):.0%}")


if __name__ == "__main__":
    main()
