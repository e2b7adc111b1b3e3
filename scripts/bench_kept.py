"""Does a pipeline kept across a setting's trials (ov_tuner.workloads.llm.kept) read what a fresh one reads? Trials
at the demo's load on a fresh pipeline each (a process each, as before) and on one kept pipeline per setting, in
pairs of alternating order, at several user counts, each count's pairs one after another (as a walk repeats the loads
at its edge): the kept pipeline's first trial at a count waits for its new users' first requests, the next go on from
the requests the last left in flight (ov_tuner.workloads.llm.stepping.run_load). Output tokens a second, p90 TPOT and
TTFT, each side's ratio with an interval, and what a trial costs in wall time. Run by hand (minutes), not in the
tests.

    .venv/bin/python scripts/bench_kept.py models/SmolLM2-135M-Instruct.Q4_1.gguf [--users 8,12,16] [--pairs 3]
    python scripts/bench_kept.py smollm2-shape.gguf --prompts none --users 16,32   # the lent 16-core machine
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from ov_tuner.stats.headtohead import paired_ratio
from ov_tuner.workloads.llm.fresh import trial_in_process
from ov_tuner.workloads.llm.ir import served_model
from ov_tuner.workloads.llm.kept import KeptPipelines
from ov_tuner.workloads.llm.measured import LlmTrial
from ov_tuner.workloads.llm.model_file import read_llm
from ov_tuner.workloads.llm.schema import PIPELINE_DEFAULT, SCHEDULER_DEFAULT, LlmLoad

FIGURES = {"tokens/s": lambda t: t.tokens_per_s, "p90 TPOT": lambda t: t.tpot_at(90),
           "p90 TTFT": lambda t: t.ttft_at(90)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--users", default="8,12,16")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--prompts", default="scripts/demo_prompts.jsonl",
                        help="a prompts file, or 'none': generated prompts of 64-512 tokens and outputs of 32-64 (for "
                             "a model without a chat template: scripts/llm_model.py's)")
    args = parser.parse_args()
    model = served_model(read_llm(args.model))
    base = LlmLoad(users=8, prompts_file=None if args.prompts == "none" else args.prompts, prompt_tokens=(64, 512),
                   output_tokens=(32, 64), seconds=2.0, lead_in_s=0.5)
    seen: dict[str, list[tuple[LlmTrial, float]]] = {"fresh": [], "kept": []}
    with KeptPipelines() as kept:
        for users in (int(u) for u in args.users.split(",")):
            for number in range(args.pairs):
                for setting in (SCHEDULER_DEFAULT, PIPELINE_DEFAULT):
                    load = replace(base, users=users)
                    for side in (("fresh", "kept") if (number + users) % 2 else ("kept", "fresh")):
                        started = time.perf_counter()
                        trial = (trial_in_process(model, "CPU", setting, load) if side == "fresh" else
                                 kept.trial(model, "CPU", setting, load))
                        took = time.perf_counter() - started
                        assert trial.ok, trial.error
                        seen[side].append((trial, took))
                        named = "scheduler" if setting == SCHEDULER_DEFAULT else "pipeline "
                        print(f"pair {number + 1} {users:3} users {named} {side:5}: {trial.tokens_per_s:6.0f} "
                              f"tokens/s, p90 TPOT {trial.tpot_at(90):5.1f} ms, p90 TTFT {trial.ttft_at(90):6.1f} ms, "
                              f"trial {took:5.1f} s", flush=True)
    for name, figure in FIGURES.items():
        ratio = paired_ratio(np.array([figure(t) for t, _ in seen["kept"]]),
                             np.array([figure(t) for t, _ in seen["fresh"]]), rerun=False)
        print(f"kept / fresh {name}: {ratio.value:.3f} (95%: {ratio.low:.3f}..{ratio.high:.3f}) over {ratio.passes} "
              "pairs")
    print(f"a trial's wall time: kept {np.median([s for _, s in seen['kept']]):.1f} s, fresh "
          f"{np.median([s for _, s in seen['fresh']]):.1f} s (medians)")


if __name__ == "__main__":
    main()
