"""Cameras served against closed-loop FPS, on the bundled MobileNet-v2: does the open loop agree with the closed one?

Sweeps the model (the default smart search, or takes `--from` a results file of it), takes its best 3 batch-1
configurations, finds the most cameras each serves at `--fps` per camera within `--max-latency` at p99, and
measures each configuration's closed-loop FPS just before and just after its camera search (their mean is
shown, with both). Cameras x FPS per camera can be at most the closed-loop FPS: the table says how close.

    .venv/bin/python scripts/bench_capacity.py [--fps 30] [--max-latency 100] [--seconds 5] [--from results.db]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from ov_tuner.analyse.capacity import capacity_candidates, served
from ov_tuner.devices.compiler import Compiler
from ov_tuner.devices.environment import cpu_model
from ov_tuner.devices.modelfile import open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.measure.engine import measure
from ov_tuner.model.architectures import DEFAULT_ARCHITECTURE
from ov_tuner.model.zoo import build_zoo_model
from ov_tuner.schema import CameraTarget, PointConfig, StopRule, SweepSpec
from ov_tuner.store.results import load_results
from ov_tuner.workloads.sweep import run_sweep
from ov_tuner.workloads.sweep.capacity.job import run_capacity
from ov_tuner.workloads.sweep.capacity.workload import CapacitySpec
from ov_tuner.workloads.sweep.present.words.edge import latency_text, trial_line


def closed_loop_fps(model: Path, config: PointConfig, seconds: float) -> float:
    runtime = Runtime()
    (device,) = runtime.resolve_devices((config.device,))
    compiled, _ = Compiler(runtime, open_model_source(model)).compile(config.compile_key, device)
    run = measure(compiled, config.nireq, 1, StopRule(window_s=1.0, fixed_s=seconds), warmup_s=0.5)
    del compiled
    return run.fps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fps", type=float, default=30.0, help="frames per second per camera")
    parser.add_argument("--max-latency", type=float, default=100.0, help="p99 budget from arrival, ms")
    parser.add_argument("--seconds", type=float, default=5.0, help="counted seconds per trial")
    parser.add_argument("--from", dest="results", type=Path, help="a results file of a sweep of the model")
    parser.add_argument("--top", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        model = build_zoo_model(DEFAULT_ARCHITECTURE, Path(tmp))[0]
        results = args.results or Path(tmp) / "results.db"
        if args.results is None:
            run_sweep(SweepSpec(model=model, out=results))
        stored = load_results(results)
        configs = capacity_candidates(stored.points, stored.confirmations, args.top)
        target = CameraTarget(args.fps, args.max_latency, 99.0)
        print(f"host: {cpu_model()}; {stored.environment.model_name}; {args.fps:g} FPS per camera, p99 <= "
              f"{args.max_latency:g} ms from arrival, {args.seconds:g} s per trial")
        trials: list[str] = []
        print("| configuration | cameras served | latency | cameras x FPS | closed-loop FPS (before, after) | "
              "share of closed loop | trials |")
        print("|---|---|---|---|---|---|---|")
        for config in configs:
            before = closed_loop_fps(model, config, args.seconds)
            (run,) = run_capacity(CapacitySpec(model, Path(tmp) / "capacity.db", (config,), target,
                                               seconds=args.seconds),
                                  lambda c, t: trials.append(f"{c.label()}: {trial_line(t, target)}"))
            after = closed_loop_fps(model, config, args.seconds)
            found = served(run)
            closed = (before + after) / 2
            served_fps = found.cameras * args.fps
            print(f"| {config.label()} | {found.cameras} | {latency_text(found)} | {served_fps:g} | "
                  f"{closed:.1f} ({before:.1f}, {after:.1f}) | {served_fps / closed:.0%} | {len(run.trials)} |")
        print("\ntrials, in the order they ran:")
        print("\n".join(trials))


if __name__ == "__main__":
    main()
