"""Does the fleet path change the figures or the time? The same small sweep as a plain `ov-tuner sweep` and as a
`fleet sweep` on a one-node local Ray cluster (started once, before the clock), interleaved, several times.

Prints per pass the wall time of each and their ratio, then every point's FPS from each path side by side with
the ratio of the medians. Targets: fleet/plain wall time <= 1.15; the point FPS ratios within the host's noise
(compare with the spread between the plain runs themselves).

    .venv/bin/python scripts/bench_fleet.py [--passes 3] [--seconds 2]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ov_tuner.fleet.local import LocalCluster
from ov_tuner.model.architectures import DEFAULT_ARCHITECTURE
from ov_tuner.model.zoo import build_zoo_model
from ov_tuner.store.results import load_results

WALL_RATIO_TARGET = 1.15
GRID = ["--precision", "fp32", "--search", "grid", "--streams", "1,2", "--nireq", "1,2,4", "--no-baselines",
        "--no-confirm", "--no-accuracy"]


def timed(args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ov_tuner", *args], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def fps_by_point(db: Path) -> dict[str, float]:
    return {f"{p.config.streams}x{p.config.nireq}": p.fps for p in load_results(db).points if p.ok}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--seconds", default="2", help="seconds per point (fixed, so both paths do the same work)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ovt-fleet-", dir="/tmp"))  # Ray's socket paths must stay short
    model = build_zoo_model(DEFAULT_ARCHITECTURE, work)[0]
    cluster = LocalCluster(work)
    cluster.start("head")  # the cluster's start is not part of what is compared
    try:
        walls: list[tuple[float, float]] = []
        fps: dict[str, tuple[list[float], list[float]]] = {}
        for i in range(args.passes):
            sweep = ["sweep", str(model), *GRID, "--seconds", args.seconds, "--out", str(work / f"plain{i}.db")]
            fleet = ["fleet", "sweep", str(model), *GRID, "--seconds", args.seconds, "--address", cluster.address,
                     "--out-dir", str(work / f"fleet{i}")]
            order = [("plain", sweep), ("fleet", fleet)] if i % 2 == 0 else [("fleet", fleet), ("plain", sweep)]
            wall = {name: timed(command) for name, command in order}
            walls.append((wall["plain"], wall["fleet"]))
            print(f"pass {i + 1} ({order[0][0]} first): plain {wall['plain']:.1f} s, fleet {wall['fleet']:.1f} s, "
                  f"fleet/plain {wall['fleet'] / wall['plain']:.3f}", flush=True)
            fleet_db = next((work / f"fleet{i}").glob("*.db"))
            for point, value in fps_by_point(work / f"plain{i}.db").items():
                fps.setdefault(point, ([], []))[0].append(value)
            for point, value in fps_by_point(fleet_db).items():
                fps.setdefault(point, ([], []))[1].append(value)
    finally:
        cluster.stop_all()
    ratio = statistics.median(f / p for p, f in walls)
    print(f"\nwall time fleet/plain, median of {len(walls)}: {ratio:.3f} (target <= {WALL_RATIO_TARGET}): "
          f"{'met' if ratio <= WALL_RATIO_TARGET else 'NOT met'}")
    print(f"\n{'point':>6} {'plain FPS (each pass)':>28} {'fleet FPS (each pass)':>28} {'fleet/plain medians':>20}")
    for point, (plain, fleet) in sorted(fps.items()):
        print(f"{point:>6} {' '.join(f'{v:6.1f}' for v in plain):>28} {' '.join(f'{v:6.1f}' for v in fleet):>28} "
              f"{statistics.median(fleet) / statistics.median(plain):>20.3f}")


if __name__ == "__main__":
    main()
