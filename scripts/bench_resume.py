"""Does a trial that goes on from its last trial's requests (ov_tuner.workloads.llm.stepping.run_load) read what one
that waits out a wave of first requests reads, on the same kept pipeline state? Two pipelines of one setting in one
process, each kept across its trials, in pairs of alternating order at several user counts: one goes on from the
requests its last trial left in flight, the other ends them and starts its users afresh each trial; with `--long`, a
third trial afresh with a window that long, where a wave of first requests weighs less. Output tokens a second, p90
TPOT and TTFT, the ratios with intervals, and a trial's wall time. With `--conversations`, the users hold the file's
conversations and read each answer for `--think-ms`: a resumed trial then goes on from the users left reading too.
Run by hand (minutes), not in the tests.

    .venv/bin/python scripts/bench_resume.py models/SmolLM2-135M-Instruct.Q4_1.gguf [--users 10,12] [--pairs 8]
    .venv/bin/python scripts/bench_resume.py models/SmolLM2-135M-Instruct.Q4_1.gguf --users 12 --long 16
    .venv/bin/python scripts/bench_resume.py models/SmolLM2-135M-Instruct.Q4_1.gguf --users 8,12 \
        --conversations scripts/demo_conversations.jsonl --think-ms 500
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from ov_tuner.stats.headtohead import paired_ratio
from ov_tuner.workloads.llm.ir import served_model
from ov_tuner.workloads.llm.measured import LlmTrial
from ov_tuner.workloads.llm.model_file import read_llm
from ov_tuner.workloads.llm.schema import SCHEDULER_DEFAULT, LlmLoad
from ov_tuner.workloads.llm.trial import Served, serve, trial_on

FIGURES = {"tokens/s": lambda t: t.tokens_per_s, "p90 TPOT": lambda t: t.tpot_at(90),
           "p90 TTFT": lambda t: t.ttft_at(90)}


def afresh(served: Served, load: LlmLoad) -> LlmTrial:
    """A trial on `served` whose users all send their first request at its start: what its last left is ended."""
    served.stop()
    return trial_on(served, SCHEDULER_DEFAULT, load)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--users", default="10,12")
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--long", type=float, default=0.0, help="seconds of a third side's window, afresh (0: none)")
    parser.add_argument("--conversations", default=None, help="a conversations file (default: the demo's prompts)")
    parser.add_argument("--think-ms", type=float, default=0.0, help="a user's reading between its turns")
    args = parser.parse_args()
    model = served_model(read_llm(args.model))
    base = LlmLoad(users=8, prompts_file=None if args.conversations else "scripts/demo_prompts.jsonl",
                   conversations_file=args.conversations, think_ms=args.think_ms, seconds=2.0, lead_in_s=0.5)
    sides = {"resumed": serve(model, "CPU", SCHEDULER_DEFAULT, base), "afresh": serve(model, "CPU", SCHEDULER_DEFAULT,
                                                                                          base)}
    names = ["resumed", "afresh", *(["long"] if args.long else [])]
    seen: dict[str, list[tuple[LlmTrial, float]]] = {name: [] for name in names}
    for users in (int(u) for u in args.users.split(",")):
        load = replace(base, users=users)
        for number in range(args.pairs):
            for name in (names if number % 2 else names[::-1]):
                started = time.perf_counter()
                trial = (trial_on(sides[name], SCHEDULER_DEFAULT, load) if name == "resumed" else
                         afresh(sides["afresh"], replace(load, seconds=args.long) if name == "long" else load))
                took = time.perf_counter() - started
                assert trial.ok, trial.error
                seen[name].append((trial, took))
                print(f"pair {number + 1} {users:3} users {name:7}: {trial.tokens_per_s:6.0f} tokens/s, p90 TPOT "
                      f"{trial.tpot_at(90):5.1f} ms, p90 TTFT {trial.ttft_at(90):6.1f} ms, trial {took:5.1f} s",
                      flush=True)
    for mine, theirs in [("resumed", "afresh"), *([("resumed", "long"), ("afresh", "long")] if args.long else [])]:
        for name, figure in FIGURES.items():
            ratio = paired_ratio(np.array([figure(t) for t, _ in seen[mine]]),
                                 np.array([figure(t) for t, _ in seen[theirs]]), rerun=False)
            print(f"{mine} / {theirs} {name}: {ratio.value:.3f} (95%: {ratio.low:.3f}..{ratio.high:.3f}) over "
                  f"{ratio.passes} pairs")
    print("a trial's wall time (medians): " + ", ".join(f"{name} {np.median([s for _, s in seen[name]]):.1f} s"
                                                         for name in names))


if __name__ == "__main__":
    main()
