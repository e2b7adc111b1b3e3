"""ov-tuner's measurement engine against OpenVINO's own benchmark_app, at the same settings and duration.

For each model (a one-convolution model, MobileNet-v2, ResNet-50) and each point of a
precision x batch x streams x nireq grid, the two are run interleaved (A B, then B A on the next
repeat) and their FPS and median latency printed side by side with the ratio and the spread. Then
the whole grid is timed as a user runs it: one `ov-tuner sweep` process against one benchmark_app
process per point. Run by hand on a quiet machine:

    .venv/bin/python scripts/bench_vs_benchmark_app.py [--seconds 1] [--repeats 3] [--models tiny_conv,...]
"""

from __future__ import annotations

import argparse
import itertools
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ov_tuner.devices.compiler import Compiler
from ov_tuner.devices.modelfile import open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.measure.engine import measure
from ov_tuner.model.zoo import build_zoo_model
from ov_tuner.schema import PointConfig, Precision, StopRule

BENCHMARK_APP = Path(sys.executable).with_name("benchmark_app")
PRECISIONS = (Precision.FP32, Precision.FP16)
BATCHES = (1, 2)
STREAMS = (1, 2)
# nireq >= streams only: benchmark_app's -nireq caps NUM_STREAMS, so nireq < streams is not the same point.
NIREQS = (2, 4)


@dataclass
class Sample:
    fps: float
    median_ms: float
    streams: int
    precision: str


def run_benchmark_app(xml: Path, point: PointConfig, input_shape: list[int], hint: str,
                      seconds: int) -> tuple[Sample, float]:
    shape = "[" + ",".join(str(d) for d in [point.batch, *input_shape[1:]]) + "]"
    args = [str(BENCHMARK_APP), "-m", str(xml), "-d", point.device, "-hint", "none", "-nstreams",
            str(point.streams), "-nireq", str(point.nireq), "-shape", shape, "-infer_precision", hint,
            "-t", str(seconds)]
    start = time.perf_counter()
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - start
    median, unit = re.search(r"Median:\s+([\d.]+) (ms|us)", out).groups()  # type: ignore[union-attr]
    return Sample(
        fps=float(re.search(r"Throughput:\s+([\d.]+) FPS", out).group(1)),  # type: ignore[union-attr]
        median_ms=float(median) / (1000 if unit == "us" else 1),
        streams=int(re.search(r"NUM_STREAMS: (\d+)", out).group(1)),  # type: ignore[union-attr]
        precision=re.search(r"INFERENCE_PRECISION_HINT: <Type: '(\w+)'>", out).group(1),  # type: ignore[union-attr]
    ), wall


def run_engine(runtime: Runtime, source_xml: Path, point: PointConfig, seconds: float) -> Sample:
    compiled, info = Compiler(runtime, open_model_source(source_xml)).compile(point.compile_key,
                                           runtime.device_info(point.device))
    m = measure(compiled, point.nireq, point.batch, StopRule(fixed_s=seconds), warmup_s=0.1)  # warmed as a sweep does
    del compiled
    return Sample(m.fps, m.latency.median, info.num_streams, info.inference_precision)


def time_sweep(xml: Path, seconds: float, out_dir: Path) -> float:
    """Wall time of one `ov-tuner sweep` process over the whole grid, into a fresh results file."""
    out = out_dir / f"sweep-{time.monotonic_ns()}.db"
    args = [sys.executable, "-m", "ov_tuner", "sweep", str(xml), "--precision", ",".join(p.value for p in PRECISIONS),
            "--batch", ",".join(map(str, BATCHES)), "--streams", ",".join(map(str, STREAMS)),
            "--nireq", ",".join(map(str, NIREQS)), "--seconds", str(seconds), "--search", "grid", "--no-baselines",
            "--out", str(out)]
    start = time.perf_counter()
    subprocess.run(args, capture_output=True, text=True, check=True)
    return time.perf_counter() - start


def spread(values: list[float]) -> str:
    return f"{min(values):.4g}-{max(values):.4g}"


def bench_model(name: str, seconds: int, repeats: int, work: Path) -> tuple[float, float, float]:
    runtime = Runtime()
    xml = build_zoo_model(name, work)[0]
    source = open_model_source(xml)
    ir = {p: runtime.ir_path(source, p) for p in PRECISIONS}
    input_shape = [d.get_length() if d.is_static else 1 for d in runtime.read_model(source, Precision.FP32).input(0)
                   .get_partial_shape()]
    points = [PointConfig("CPU", p, b, s, n) for p, b, s, n in itertools.product(PRECISIONS, BATCHES, STREAMS, NIREQS)]
    cpu = runtime.device_info("CPU")
    engine: dict[PointConfig, list[Sample]] = {p: [] for p in points}
    app: dict[PointConfig, list[Sample]] = {p: [] for p in points}
    sweep_walls, app_walls = [], []
    for repeat in range(repeats):
        app_wall = 0.0
        for point in points:
            hint = point.precision.hint if point.precision is not Precision.FP16 or cpu.supports_f16 else "f32"
            order = ("engine", "app") if repeat % 2 == 0 else ("app", "engine")
            for which in order:
                if which == "engine":
                    engine[point].append(run_engine(runtime, xml, point, seconds))
                else:
                    sample, wall = run_benchmark_app(ir[point.precision], point, input_shape, hint, seconds)
                    app[point].append(sample)
                    app_wall += wall
        app_walls.append(app_wall)
        sweep_walls.append(time_sweep(xml, seconds, work))

    print(f"\n## {name}: {len(points)} points, {seconds:g} s each, {repeats} repeats (median [min-max])")
    print(f"{'precision batch streams nireq':31s} {'streams ot/ba':>13s} {'ov-tuner FPS':>24s} "
          f"{'benchmark_app FPS':>24s} {'ratio':>6s} {'median ms ot/ba':>17s}")
    ratios = []
    for point in points:
        a, b = engine[point], app[point]
        fps_a, fps_b = [s.fps for s in a], [s.fps for s in b]
        ratio = statistics.median(fps_a) / statistics.median(fps_b)
        ratios.append(ratio)
        label = f"{point.precision.value:5s} b{point.batch} {point.streams} streams x {point.nireq} req"
        streams = f"{a[0].streams}/{b[0].streams}"
        print(f"{label:31s} {streams:>13s} {statistics.median(fps_a):10.1f} [{spread(fps_a):>11s}] "
              f"{statistics.median(fps_b):10.1f} [{spread(fps_b):>11s}] {ratio:6.3f} "
              f"{statistics.median(s.median_ms for s in a):8.3f}/{statistics.median(s.median_ms for s in b):.3f}")
    precisions = sorted({(s.precision, t.precision) for p in points for s, t in zip(engine[p], app[p], strict=True)})
    wall_ratio = statistics.median(sweep_walls) / statistics.median(app_walls)
    print(f"median FPS ratio ov-tuner/benchmark_app: {statistics.median(ratios):.3f} "
          f"(points {min(ratios):.3f}-{max(ratios):.3f}); precisions read back (ov-tuner, benchmark_app): {precisions}")
    print(f"grid wall time: ov-tuner sweep {statistics.median(sweep_walls):.1f} s [{spread(sweep_walls)}] vs "
          f"benchmark_app once per point {statistics.median(app_walls):.1f} s [{spread(app_walls)}]: "
          f"ratio {wall_ratio:.2f}")
    return statistics.median(ratios), statistics.median(sweep_walls), statistics.median(app_walls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=1, help="whole seconds per point (benchmark_app's -t)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--models", default="tiny_conv,mobilenet_v2,resnet50")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        summary = {name: bench_model(name, args.seconds, args.repeats, Path(tmp)) for name in args.models.split(",")}
    print("\n## summary")
    for name, (ratio, sweep_wall, app_wall) in summary.items():
        print(f"{name:13s} median FPS ratio {ratio:.3f}   grid wall {sweep_wall:.1f} s vs {app_wall:.1f} s "
              f"({sweep_wall / app_wall:.2f})")


if __name__ == "__main__":
    main()
