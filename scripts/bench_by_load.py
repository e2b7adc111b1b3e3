"""A knob against the same setting without it, load by load: two pipelines in one process, GenAI's scheduler default
with the knob and without it, each kept across its trials, in pairs of alternating order at several user counts.
`--knob lookup`: prompt lookup decoding (5 tokens proposed from n-grams of up to 3) on input-grounded requests
(summarise, rewrite, extract: a prompts file's), at 1, 2, 4 and 8 users by default. `--knob prefix`: prefix caching
(OVMS's default against GenAI's scheduler default) on users holding conversations (`--conversations`). Per load: output
tokens a second, p90 TTFT and p90 TPOT of each, the paired ratios with 95% intervals; then ov-tuner's own verdict by
load (ov_tuner.workloads.llm.by_load) on the same trials, as the answer words it. Run by hand (minutes), not in the
tests.

    .venv/bin/python scripts/bench_by_load.py models/SmolLM2-135M-Instruct.Q4_1.gguf [--users 1,2,4,8] [--pairs 4]
    .venv/bin/python scripts/bench_by_load.py models/SmolLM2-135M-Instruct.Q4_1.gguf --knob prefix --users 4,8 \
        --conversations scripts/demo_conversations.jsonl
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import numpy as np

from ov_tuner.stats.headtohead import paired_ratio
from ov_tuner.workloads.llm.by_load import by_load
from ov_tuner.workloads.llm.ir import served_model
from ov_tuner.workloads.llm.measured import LlmTrial, at_budget, pooled
from ov_tuner.workloads.llm.model_file import read_llm
from ov_tuner.workloads.llm.present.words import by_load_text
from ov_tuner.workloads.llm.schema import LOOKUP, OVMS_DEFAULT, SCHEDULER_DEFAULT, LlmBudget, LlmLoad
from ov_tuner.workloads.llm.trial import serve, trial_on


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--knob", choices=("lookup", "prefix"), default="lookup")
    parser.add_argument("--prompts", default="scripts/demo_prompts.jsonl")
    parser.add_argument("--conversations", default=None, help="a conversations file, sent instead of --prompts")
    parser.add_argument("--think-ms", type=float, default=500.0, help="a conversation's reading time")
    parser.add_argument("--users", default="1,2,4,8")
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    model = served_model(read_llm(args.model))
    knob = (replace(SCHEDULER_DEFAULT, lookup_tokens=LOOKUP[0], lookup_ngram=LOOKUP[1]) if args.knob == "lookup" else
            OVMS_DEFAULT)
    base = (LlmLoad(users=1, conversations_file=args.conversations, think_ms=args.think_ms, seconds=args.seconds,
                    lead_in_s=0.5) if args.conversations else
            LlmLoad(users=1, prompts_file=args.prompts, seconds=args.seconds, lead_in_s=0.5))
    sides = {SCHEDULER_DEFAULT: serve(model, "CPU", SCHEDULER_DEFAULT, base), knob: serve(model, "CPU", knob, base)}
    seen: dict[int, list[tuple[LlmTrial, LlmTrial]]] = {}
    for users in (int(u) for u in args.users.split(",")):
        load = replace(base, users=users)
        for number in range(args.pairs):
            order = list(sides) if number % 2 else list(sides)[::-1]
            trials = {setting: trial_on(sides[setting], setting, load) for setting in order}
            assert all(t.ok for t in trials.values()), [t.error for t in trials.values()]
            seen.setdefault(users, []).append((trials[knob], trials[SCHEDULER_DEFAULT]))
            print(f"pair {number + 1} {users} users: without {trials[SCHEDULER_DEFAULT].tokens_per_s:5.0f} tokens/s, "
                  f"with {trials[knob].tokens_per_s:5.0f}", flush=True)
    print(f"\n{args.knob}: with / without, 95% intervals; p90s over each side's requests")
    print("| users | tokens/s without | tokens/s with | tokens/s | p90 TTFT | p90 TPOT | p90 TTFT ms without, with |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for users, pairs in seen.items():
        mine, theirs = (np.array([[t.tokens_per_s, t.ttft_at(90), t.tpot_at(90)] for t in side])
                        for side in zip(*pairs, strict=True))
        rates = [paired_ratio(mine[:, i], theirs[:, i]) for i in (0, 1, 2)]
        print(f"| {users} | {np.median(theirs[:, 0]):.0f} | {np.median(mine[:, 0]):.0f} | "
              + " | ".join(f"{r.value:.3f} ({r.low:.3f}..{r.high:.3f})" for r in rates)
              + f" | {np.median(theirs[:, 1]):.0f}, {np.median(mine[:, 1]):.0f} |")
    unbounded = LlmBudget()  # no budget here: every load is within it, its p90s said beside
    verdict = by_load({float(users): [(a.tokens_per_s, b.tokens_per_s) for a, b in pairs]
                       for users, pairs in seen.items()},
                      {float(users): (at_budget(*pooled([a for a, _ in pairs]), unbounded), True)
                       for users, pairs in seen.items()})
    print(f"\nov-tuner's verdict: {by_load_text(knob, SCHEDULER_DEFAULT, verdict, closed=True)}")
    for served in sides.values():
        served.stop()


if __name__ == "__main__":
    main()
