"""Smart search against the full grid: how close to the grid's best FPS, in how much of its time.

On the default model (MobileNet-v2) and a heavier one (ResNet-50), each repeat sweeps the same
streams x nireq x batch grid twice, with `--search grid` and `--search smart` (alternating which goes
first), both with the default stability-driven measurement, and prints wall times and best FPS.
Target: smart finds a configuration within 2% of the grid's best FPS in <= 40% of its wall time.
Run by hand on a quiet machine:

    .venv/bin/python scripts/bench_search.py [--repeats 3] [--models mobilenet_v2,resnet50]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from ov_tuner.analysis import fastest, grid_points
from ov_tuner.schema import PointResult, Precision, Search, SweepSpec
from ov_tuner.store import load_results
from ov_tuner.sweep import run_sweep
from ov_tuner.zoo import build_zoo_model

STREAMS = (1, 2)
NIREQS = (1, 2, 4, 8, 16)
BATCHES = (1, 2)


def sweep(model: Path, search: Search, out: Path) -> tuple[float, PointResult, int]:
    spec = SweepSpec(model=model, out=out, precisions=(Precision.FP32,), streams=STREAMS, nireq=NIREQS,
                     batches=BATCHES, search=search, baselines=False)
    start = time.perf_counter()
    run_sweep(spec)
    wall = time.perf_counter() - start
    points = grid_points(load_results(out).points)
    best = fastest(points)
    assert best is not None
    return wall, best, len(points)


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
                  f"{'smart best FPS':>21} {'FPS %':>6} {'points':>7}")
            time_ratios, fps_ratios = [], []
            for repeat in range(args.repeats):
                order = (Search.GRID, Search.SMART) if repeat % 2 == 0 else (Search.SMART, Search.GRID)
                runs = {s: sweep(model, s, work / f"{name}-{s.value}-{repeat}.db") for s in order}
                grid_wall, grid_best, _ = runs[Search.GRID]
                smart_wall, smart_best, smart_points = runs[Search.SMART]
                time_ratios.append(smart_wall / grid_wall)
                fps_ratios.append(smart_best.fps / grid_best.fps)
                print(f"{repeat:6d} {grid_wall:8.1f} {smart_wall:8.1f} {time_ratios[-1]:7.0%} "
                      f"{grid_best.fps:9.1f} ({where(grid_best):>9s}) "
                      f"{smart_best.fps:9.1f} ({where(smart_best):>9s}) {fps_ratios[-1]:6.1%} "
                      f"{smart_points:3d}/{grid_size}")
            print(f"median: smart takes {statistics.median(time_ratios):.0%} of the grid's time "
                  f"(target <= 40%) and finds {statistics.median(fps_ratios):.1%} of its best FPS "
                  f"(target >= 98%); worst repeat {min(fps_ratios):.1%}")


if __name__ == "__main__":
    main()
