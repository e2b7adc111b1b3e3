"""Does a new set of requests start slow? One compiled model, several points in a row, every window.

The sweep warms a compiled model once and starts later points on it at once; smart search may end a
point on its first window. This prints each point's 1 s windows so a slow first window shows, e.g.
ResNet-50 at batch 2 x 2 streams. Run by hand:

    .venv/bin/python scripts/bench_slow_start.py MODEL.xml [--batch 2] [--streams 2] [--nireqs 2,4,2,4]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ov_tuner.devices.compiler import Compiler
from ov_tuner.devices.modelfile import open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.measure.engine import measure
from ov_tuner.schema import CompileKey, Precision, StopRule


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--streams", type=int, default=2)
    parser.add_argument("--nireqs", default="2,4,2,4", help="points measured in this order on one compiled model")
    parser.add_argument("--seconds", type=float, default=7.0)
    parser.add_argument("--warmup", type=float, default=0.1, help="seconds of warm-up before every point")
    args = parser.parse_args()
    if args.seconds < 3:
        parser.error("--seconds must be at least 3: each point's first 1 s window is compared with later ones")
    runtime = Runtime()
    key = CompileKey("CPU", Precision.FP32, args.batch, args.streams)
    compiled, _ = Compiler(runtime, open_model_source(args.model)).compile(key, runtime.device_info("CPU"))
    print(f"{args.model.name}: fp32 batch {args.batch}, {args.streams} streams, {args.warmup:g} s warm-up per point")
    for nireq in (int(n) for n in args.nireqs.split(",")):
        m = measure(compiled, nireq, args.batch, StopRule(window_s=1.0, fixed_s=args.seconds), args.warmup)
        first, rest = m.windows[0].fps, [w.fps for w in m.windows[1:]]
        print(f"nireq {nireq:2d}: windows {' '.join(f'{w.fps:.1f}' for w in m.windows)} FPS; "
              f"first {first / (sum(rest) / len(rest)) - 1:+.1%} vs the later ones")


if __name__ == "__main__":
    main()
