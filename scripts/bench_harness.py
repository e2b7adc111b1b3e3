"""The pipeline harness's own ceiling against what the pipeline serves, on this host: each pipeline tuned as
`ov-tuner pipeline` tunes it (short trials, 2 passes), then, from its results file, the frames a second the answer
holds, the ceiling ov-tuner's load harness measured at the answer's split with the device's work made trivial, and
the device's bound from each stage alone and a frame's decode.

    .venv/bin/python scripts/bench_harness.py [PIPELINE.toml ...] [--seconds 1] [--out-dir DIR] [--against REF]

With no file it runs two: a tiny pipeline it writes (a one-convolution model with a 3x32x32 input in both stages,
the second on 2 regions, cameras of a 64x64 Motion-JPEG clip: the harness, not the device, should limit it), and
the demo's (scripts/demo_pipeline.toml; run scripts/demo first for its models and clip). Run by hand, never beside
a test or another benchmark.

With --against REF (a commit of this repository: the harness before a change), each pipeline is tuned by REF's
code first (a git worktree of it, its own bench_harness.py), then by this checkout's, one after the other in the same
run, so the two harnesses are compared in the same window of a shared host. Both then read a copy of each pipeline
file without its stages' answer files (a results file this checkout wrote may be newer than REF reads): such a stage
runs at its own solo setting, measured by each.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as ops
import tomllib

from ov_tuner.model.clip import write_clip
from ov_tuner.workloads.pipeline.answer import pipeline_answer
from ov_tuner.workloads.pipeline.job import run_pipeline
from ov_tuner.workloads.pipeline.present.words import split_text
from ov_tuner.workloads.pipeline.results_file import load_pipeline
from ov_tuner.workloads.pipeline.workload import PipelineSpec

TINY = """# bench_harness.py's tiny pipeline: the device has next to nothing to do
fps = 15
max_latency_ms = 200
percentile = 99
[video]
file = "clip.avi"
[[stage]]
name = "first"
model = "conv.xml"
[[stage]]
name = "second"
model = "conv.xml"
per_frame = 2
"""


def tiny_pipeline(folder: Path) -> Path:
    """The one-convolution model, a 64x64 clip of two gradients, and the pipeline file naming them."""
    image = ops.parameter([1, 3, 32, 32], ov.Type.f32, name="image")
    weights = np.random.default_rng(0).normal(0, 0.1, (8, 3, 3, 3)).astype(np.float32)
    conv = ops.convolution(image, ops.constant(weights), [1, 1], [1, 1], [1, 1], [1, 1])
    ov.save_model(ov.Model([conv], [image], "one_conv"), folder / "conv.xml")
    ramp = np.linspace(0, 255, 80, dtype=np.float32)
    first = np.stack([np.tile(ramp, (80, 1)), np.tile(ramp[:, None], (1, 80)), np.full((80, 80), 90.0)], -1)
    write_clip([first.astype(np.uint8), first[::-1].astype(np.uint8)], folder / "clip.avi", 15.0, (64, 64), 4.0)
    (folder / "tiny.toml").write_text(TINY)
    return folder / "tiny.toml"


def bench(file: Path, out: Path, seconds: float) -> None:
    start = time.perf_counter()
    run_pipeline(PipelineSpec(file, out, seconds=seconds, lead_in_s=0.3, passes=2, max_trials=6, solo_s=0.5))
    wall = time.perf_counter() - start
    stored = load_pipeline(out)
    answer = pipeline_answer(stored) if stored else None
    if answer is None or answer.harness is None:
        print(f"{file.name}: no answer with a harness ceiling ({out})")
        return
    h, c = answer.harness, answer.harness.ceiling
    print(f"{file.name} ({wall:.0f} s): {answer.cameras} cameras with {split_text(answer.pipeline, answer.split)}")
    print(f"  served         {h.served_frames_per_s:8.0f} frames/s")
    print(f"  harness        {c.frames_per_s:8.0f} frames/s{'' if c.reached else ' or more'} (served: {h.share:.0%})"
          f"{'  <- limited by the harness' if h.limited else ''}")
    print(f"  device bound   {c.bound_frames_per_s:8.0f} frames/s (served: {h.share_of_bound:.0%}; decode "
          f"{c.decode_ms:.2g} ms a frame on one thread, stages alone {', '.join(f'{f:.0f}' for f in c.solo_fps)} "
          f"FPS, {', '.join(f'{r:g}' for r in c.runs_per_frame)} runs a frame, {c.cores} cores)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipelines", type=Path, nargs="*")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--out-dir", type=Path, default=None)
    parser.add_argument("--against", default=None, help="a commit whose harness to run first, for before and after")
    args = parser.parse_args()
    out = args.out_dir or Path(tempfile.mkdtemp(prefix="bench_harness-"))
    out.mkdir(parents=True, exist_ok=True)
    files = args.pipelines or [tiny_pipeline(out), Path(__file__).parent / "demo_pipeline.toml"]
    before = worktree(args.against, out) if args.against else None
    try:
        compare(files, out, args.seconds, before, args.against)
    finally:
        if before is not None:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], check=True,
                           cwd=Path(__file__).parent)


def compare(files: list[Path], out: Path, seconds: float, before: Path | None, ref: str | None) -> None:
    """Bench each pipeline, REF's harness first where there is one (`before`: its checkout)."""
    for file in files:
        if not file.exists() or (file.name == "demo_pipeline.toml" and not (file.parent.parent / "results").exists()):
            print(f"{file}: skipped (run scripts/demo first for the demo's models and clip)")
            continue
        if before is not None:
            file = without_answers(file, out)
            print(f"before ({ref}):", flush=True)
            subprocess.run([sys.executable, "scripts/bench_harness.py", str(file.resolve()), "--seconds",
                            str(seconds), "--out-dir", str(out / "before")], cwd=before, check=True,
                           env={**os.environ, "PYTHONPATH": str(before)})
            print("after (this checkout):")
        bench(file, out / f"{file.stem}.db", seconds)


def without_answers(file: Path, out: Path) -> Path:
    """A copy of the pipeline file in `out` with its paths made absolute and no stage's answer file."""
    data = tomllib.loads(file.read_text())
    video = data.get("video", {})
    if "file" in video:
        video["file"] = str((file.parent / video["file"]).resolve())
    lines = [f"{key} = {json.dumps(value)}" for key, value in data.items() if not isinstance(value, (dict, list))]
    lines += ["[video]", *(f"{key} = {json.dumps(value)}" for key, value in video.items())]
    for stage in data.get("stage", []):
        stage.pop("answer", None)
        stage["model"] = str((file.parent / stage["model"]).resolve())
        lines += ["[[stage]]", *(f"{key} = {json.dumps(value)}" for key, value in stage.items()
                                 if not isinstance(value, dict))]
        lines += [f"{key}.{inner} = {json.dumps(v)}" for key, value in stage.items() if isinstance(value, dict)
                  for inner, v in value.items()]
    copy = out / f"{file.stem}-no-answers.toml"
    copy.write_text("\n".join(lines) + "\n")
    return copy


def worktree(ref: str, out: Path) -> Path:
    """A checkout of `ref` beside the results, for its harness to run from."""
    folder = out / "before-src"
    subprocess.run(["git", "worktree", "add", "--detach", "--force", str(folder), ref], check=True,
                   capture_output=True, cwd=Path(__file__).parent)
    return folder


if __name__ == "__main__":
    main()
