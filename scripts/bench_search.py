"""Smart search against the full grid: how close to the grid's best FPS, in how much of its time.

On the default model (MobileNet-v2) and a heavier one (ResNet-50), each repeat sweeps the same
streams x nireq x batch grid twice, with `--search grid` and `--search smart` (alternating which goes
first), both with the default stability-driven measurement, and prints wall times and best FPS.
Target: smart finds a configuration within 2% of the grid's best FPS in <= 40% of its wall time.

Three FPS ratios are printed, each judging smart's pick against the grid's best configuration:
- "FPS %": smart's own best figure over the grid's, from two runs minutes apart, so it also holds the
  machine's drift between them;
- "pick %": the FPS the grid measured for smart's pick over the grid's best, from one run, but each a
  single noisy measurement among near-ties (the grid's best is the luckiest of them);
- "h2h %": the two configurations compiled side by side and measured head to head, alternating
  (A B B A ...), median of the rounds' ratios: the fairest of the three, 100% when both picked the same.
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

from ov_tuner.analyse.answers import fastest, grid_points
from ov_tuner.devices.runtime import Runtime, open_model_source
from ov_tuner.measure.engine import measure
from ov_tuner.model.zoo import build_zoo_model
from ov_tuner.schema import PointConfig, PointResult, Precision, Search, StopRule, SweepSpec
from ov_tuner.store.results import load_results
from ov_tuner.sweep import run_sweep

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


def head_to_head(model: Path, a: PointConfig, b: PointConfig, rounds: int = 4, seconds: float = 1.5) -> float:
    """FPS of `a` over FPS of `b`, both compiled at once and measured alternately; median over rounds."""
    if a == b:
        return 1.0
    runtime = Runtime()
    source, cpu = open_model_source(model), runtime.device_info("CPU")
    configs = (a, b)
    compiled = [runtime.compile_alone(source, config.compile_key, cpu)[0] for config in configs]
    rule = StopRule(window_s=seconds, fixed_s=seconds)
    ratios = []
    for round_ in range(rounds):
        order = (0, 1) if round_ % 2 == 0 else (1, 0)
        fps = {i: measure(compiled[i], configs[i].nireq, configs[i].batch, rule, warmup_s=0.1).fps for i in order}
        ratios.append(fps[0] / fps[1])
    return statistics.median(ratios)


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
                  f"{'smart best FPS':>21} {'FPS %':>6} {'pick %':>7} {'h2h %':>6} {'points':>7} {'outpaced':>8}")
            time_ratios, fps_ratios, pick_ratios, h2h_ratios = [], [], [], []
            for repeat in range(args.repeats):
                order = (Search.GRID, Search.SMART) if repeat % 2 == 0 else (Search.SMART, Search.GRID)
                runs = {s: sweep(model, s, work / f"{name}-{s.value}-{repeat}.db") for s in order}
                grid, smart = runs[Search.GRID], runs[Search.SMART]
                time_ratios.append(smart.wall_s / grid.wall_s)
                fps_ratios.append(smart.best.fps / grid.best.fps)
                pick_ratios.append(grid.fps[smart.best.config] / grid.best.fps)
                h2h_ratios.append(head_to_head(model, smart.best.config, grid.best.config))
                print(f"{repeat:6d} {grid.wall_s:8.1f} {smart.wall_s:8.1f} {time_ratios[-1]:7.0%} "
                      f"{grid.best.fps:9.1f} ({where(grid.best):>9s}) "
                      f"{smart.best.fps:9.1f} ({where(smart.best):>9s}) {fps_ratios[-1]:6.1%} {pick_ratios[-1]:7.1%} "
                      f"{h2h_ratios[-1]:6.1%} {len(smart.fps):3d}/{grid_size} {smart.outpaced:8d}")
            print(f"smart takes {statistics.median(time_ratios):.0%} of the grid's time, median (target <= 40%; "
                  f"worst {max(time_ratios):.0%})")
            for label, ratios in (("FPS", fps_ratios), ("pick", pick_ratios), ("h2h", h2h_ratios)):
                print(f"{label:>4} %: median {statistics.median(ratios):.1%}, worst {min(ratios):.1%} (target >= 98%)")


if __name__ == "__main__":
    main()
