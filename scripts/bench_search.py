"""Smart search against the full grid: how close to the grid's best FPS, in how much of its time.

On the default model (MobileNet-v2) and a heavier one (ResNet-50), each repeat sweeps the same
streams x nireq x batch grid twice, with `--search grid` and `--search smart` (alternating which goes
first), both with the default stability-driven measurement, and prints wall times and best FPS.
Target: smart finds a configuration within 2% of the grid's best FPS in <= 40% of its wall time.

Two FPS ratios are printed. "pick %" judges the search: the FPS the grid measured for the configuration
smart picked, over the grid's best, both from the same run. "FPS %" is smart's own best figure over the
grid's, from two runs minutes apart, so it also holds the machine's drift between them.
Run by hand on a quiet machine:

    .venv/bin/python scripts/bench_search.py [--repeats 3] [--models mobilenet_v2,resnet50]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ov_tuner.analysis import fastest, grid_points
from ov_tuner.schema import PointConfig, PointResult, Precision, Search, SweepSpec
from ov_tuner.store import load_results
from ov_tuner.sweep import run_sweep
from ov_tuner.zoo import build_zoo_model

STREAMS = (1, 2)
NIREQS = (1, 2, 4, 8, 16)
BATCHES = (1, 2)


@dataclass(frozen=True)
class Run:
    wall_s: float
    best: PointResult
    fps: dict[PointConfig, float]  # every measured point
    outpaced: int


def sweep(model: Path, search: Search, out: Path) -> Run:
    spec = SweepSpec(model=model, out=out, precisions=(Precision.FP32,), streams=STREAMS, nireq=NIREQS,
                     batches=BATCHES, search=search, baselines=False)
    start = time.perf_counter()
    summary = run_sweep(spec)
    wall = time.perf_counter() - start
    points = grid_points(load_results(out).points)
    best = fastest(points)
    assert best is not None
    return Run(wall, best, {p.config: p.fps for p in points}, summary.outpaced)


def where(p: PointResult) -> str:
    return f"b{p.config.batch} {p.config.streams}x{p.config.nireq}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--models", default="mobilenet_v2,resnet50")
    args = parser.parse_args()
    grid_size = len(STREAMS) * len(NIREQS) * len(BATCHES)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name in args.models.split(","):
            model = build_zoo_model(name, work)[0]
            print(f"\n## {name}: fp32, streams {STREAMS} x nireq {NIREQS} x batch {BATCHES} ({grid_size} points), "
                  "--time auto")
            print(f"{'repeat':>6} {'grid s':>8} {'smart s':>8} {'time %':>7} {'grid best FPS':>21} "
                  f"{'smart best FPS':>21} {'pick %':>7} {'FPS %':>6} {'points':>7} {'outpaced':>8}")
            time_ratios, pick_ratios, fps_ratios = [], [], []
            for repeat in range(args.repeats):
                order = (Search.GRID, Search.SMART) if repeat % 2 == 0 else (Search.SMART, Search.GRID)
                runs = {s: sweep(model, s, work / f"{name}-{s.value}-{repeat}.db") for s in order}
                grid, smart = runs[Search.GRID], runs[Search.SMART]
                time_ratios.append(smart.wall_s / grid.wall_s)
                pick_ratios.append(grid.fps[smart.best.config] / grid.best.fps)
                fps_ratios.append(smart.best.fps / grid.best.fps)
                print(f"{repeat:6d} {grid.wall_s:8.1f} {smart.wall_s:8.1f} {time_ratios[-1]:7.0%} "
                      f"{grid.best.fps:9.1f} ({where(grid.best):>9s}) "
                      f"{smart.best.fps:9.1f} ({where(smart.best):>9s}) {pick_ratios[-1]:7.1%} {fps_ratios[-1]:6.1%} "
                      f"{len(smart.fps):3d}/{grid_size} {smart.outpaced:8d}")
            print(f"median: smart takes {statistics.median(time_ratios):.0%} of the grid's time (target <= 40%, "
                  f"worst {max(time_ratios):.0%}); its pick runs at {statistics.median(pick_ratios):.1%} of the "
                  f"grid's best in the grid's own run (target >= 98%, worst {min(pick_ratios):.1%}); its own best "
                  f"figure is {statistics.median(fps_ratios):.1%} of the grid's (worst {min(fps_ratios):.1%})")


if __name__ == "__main__":
    main()
