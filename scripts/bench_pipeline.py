"""The pipeline search's climb against an exhaustive search of a small split space, on this host, one after the other:
the cameras each answer serves, whether the climb's answer is within one camera of the exhaustive best, the trials
and the wall time of each. The space: each CPU stage at 1 or all the cores' threads, one stream per thread or one in
all, two requests per stream; the decoder on 1 or 2 threads.

    .venv/bin/python scripts/bench_pipeline.py [PIPELINE.toml] [--seconds 2] [--lead-in 0.5] [--out-dir DIR]

The default pipeline is the demo's (scripts/demo_pipeline.toml; run scripts/demo first for its models, clip and the
classifier's answer). Run by hand, never beside a test or another benchmark.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from ov_tuner.workloads.pipeline.answer import pipeline_answer
from ov_tuner.workloads.pipeline.answer_record import PipelineAnswer
from ov_tuner.workloads.pipeline.file import read_pipeline
from ov_tuner.workloads.pipeline.job import run_pipeline
from ov_tuner.workloads.pipeline.present.words import split_text
from ov_tuner.workloads.pipeline.results_file import load_pipeline
from ov_tuner.workloads.pipeline.search import SplitSpace, StageSpace
from ov_tuner.workloads.pipeline.workload import PipelineSpec


def small_space(stages: int, cores: int) -> SplitSpace:
    threads = tuple(sorted({1, cores}))
    return SplitSpace(tuple(StageSpace(threads, threads, (2,)) for _ in range(stages)), tuple(sorted({1, 2})))


def tune(spec: PipelineSpec) -> tuple[PipelineAnswer, float, int]:
    start = time.perf_counter()
    run_pipeline(spec)
    wall = time.perf_counter() - start
    stored = load_pipeline(spec.out)
    assert stored is not None
    answer = pipeline_answer(stored)
    assert answer is not None
    return answer, wall, sum(t.pass_number == 0 for t in stored.trials)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline", type=Path, nargs="?", default=Path(__file__).parent / "demo_pipeline.toml")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--lead-in", type=float, default=0.5)
    parser.add_argument("--out-dir", type=Path, default=None)
    args = parser.parse_args()
    out = args.out_dir or Path(tempfile.mkdtemp(prefix="bench_pipeline-"))
    out.mkdir(parents=True, exist_ok=True)
    pipeline = read_pipeline(args.pipeline).pipeline
    space = small_space(len(pipeline.stages), os.cpu_count() or 1)
    print(f"{len(space.splits())} splits in the small space; results in {out}")
    common = {"seconds": args.seconds, "lead_in_s": args.lead_in, "passes": 0, "space": space}
    climb, climb_s, climb_trials = tune(PipelineSpec(args.pipeline, out / "climb.db", **common))
    every, every_s, every_trials = tune(PipelineSpec(args.pipeline, out / "exhaustive.db", exhaustive=True, **common))
    print(f"climb:      {climb.cameras} cameras with {split_text(pipeline, climb.split)}; {climb_trials} trials, "
          f"{climb_s:.0f} s")
    print(f"exhaustive: {every.cameras} cameras with {split_text(pipeline, every.split)}; {every_trials} trials, "
          f"{every_s:.0f} s")
    same = next((t for t in every.tried if t.split == climb.split), None)
    if same is not None:
        print(f"the climb's answer in the exhaustive run: {same.cameras} cameras")
    else:
        print("the climb's answer is a starting point outside the small space (not in the exhaustive run)")
    gap = every.cameras - climb.cameras
    print(f"the climb's answer is {'within' if gap <= 1 else 'NOT within'} one camera of the exhaustive best "
          f"({gap:+d}); the climb took {climb_s / every_s:.0%} of the exhaustive search's time")


if __name__ == "__main__":
    main()
