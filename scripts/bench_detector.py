"""First contact with a real detector, as a user meets it: rapidocr's PP-OCRv4 text detector (DBNet, real weights,
input [?,3,?,?]) swept through the command line with --shape, scikit-image's photos and --precision auto,int8; then
the benchmark_app form `recommend` prints, run as printed, beside the sweep's own FPS for that configuration; and the
same for the fastest int8 configuration, whether or not the answer deploys it. Run by hand (minutes on 2 cores):

    .venv/bin/python scripts/bench_detector.py [--side 640] [--seconds 15]
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from photos import write_photos
from real_models import fetch

from ov_tuner.analyse.accuracy import NO_LIMIT
from ov_tuner.analyse.recommend import Recommendation, results_answer
from ov_tuner.schema import PointResult, Precision
from ov_tuner.store.results import StoredResults, load_results
from ov_tuner.workloads.sweep.present.words.accuracy import accuracy_summary

BIN = Path(sys.executable).parent


def ov_tuner(*args: str) -> str:
    """Run ov-tuner as a user does; its output, and stop on failure."""
    done = subprocess.run([str(BIN / "ov-tuner"), *args], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "160"})
    if done.returncode != 0:
        raise SystemExit(f"ov-tuner {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def benchmark_app_fps(results: Path, work: Path, seconds: int, precision: Precision | None = None) -> tuple[str, float]:
    """The benchmark_app form `recommend` prints (for one precision where given), run as printed with `-t` added,
    after the step that makes the model it loads (the INT8 IR's `ov-tuner quantize` line); the line and the FPS
    benchmark_app reports."""
    script = work / f"run_{precision.value if precision else 'answer'}.sh"
    args = ["recommend", str(results), "--format", "benchmark_app", "-o", str(script)]
    if precision is not None:
        args += ["--precision", precision.value, "--max-accuracy-loss", "none"]
    for step in ov_tuner(*args).splitlines():
        if step.startswith("ov-tuner quantize "):
            ov_tuner(*shlex.split(step)[1:])
    text = script.read_text().rstrip("\n") + f" -t {seconds}\n"
    script.write_text(text)
    done = subprocess.run(["sh", str(script)], capture_output=True, text=True, cwd=work,
                          env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"})
    if done.returncode != 0:
        raise SystemExit(f"benchmark_app failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    line = next(ln for ln in text.splitlines() if ln.startswith("benchmark_app "))
    return line, float(re.findall(r"Throughput:\s+([\d.]+) FPS", done.stdout)[-1])


def configuration(p: PointResult) -> str:
    return f"{p.config.device} {p.config.precision.value} {p.streams} x {p.nireq}, batch {p.config.batch}"


def accuracy_lines(stored: StoredResults) -> list[str]:
    return [f"  {a.precision.value} batch {a.batch}: {accuracy_summary(a, stored.quantization)}"
            for a in stored.accuracies]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", type=int, default=640, help="Height and width the detector is swept at.")
    parser.add_argument("--seconds", type=int, default=15, help="benchmark_app's -t.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        model = next(p for p in fetch(work / "real") if p.stem == "ppocr_det")
        write_photos(work / "photos")
        out = work / "ppocr_det.db"
        print(ov_tuner("sweep", str(model), "--shape", f"[1,3,{args.side},{args.side}]", "--images",
                       str(work / "photos"), "--precision", "auto,int8", "--out", str(out)))
        stored = load_results(out)
        print("outputs against FP32, on the held-apart photos:", *accuracy_lines(stored), sep="\n")
        rows: list[tuple[str, Recommendation, Precision | None]] = [("answer", results_answer(stored), None)]
        fastest_int8 = results_answer(stored, NO_LIMIT, precision=Precision.INT8)
        rows.append(("fastest int8", fastest_int8, Precision.INT8))
        for label, rec, precision in rows:
            line, fps = benchmark_app_fps(out, work, args.seconds, precision)
            how = "head to head" if rec.confirmed else "measured apart"
            print(f"{label}: {configuration(rec.winner)}: ov-tuner {rec.fps:.1f} FPS ({how}); benchmark_app "
                  f"{fps:.1f} FPS ({fps / rec.fps:.2f}x), run as printed:\n  {line}")


if __name__ == "__main__":
    main()
