"""Does an LLM trial's tokens a second depend on how long its window is against a request? The counted window's
figure (what the server produced while it was open, ov_tuner.workloads.llm.arrivals.CountedWindow) beside the count
ov-tuner used before v11 (the output tokens of the requests that arrived in the window, over the time from the first
of them to arrive to the last to end), from the same trials, at a short window and a long one, in alternating passes.
Run by hand (minutes), not in the tests. A count that holds gives the same figure at both windows; the old one read
low where a request lasts as long as the window.

    .venv/bin/python scripts/bench_llm_window.py MODEL.gguf [--users 16,64] [--seconds 2,8] [--passes 2]

The load is the demo's: prompts of 256-512 tokens, outputs of 64-128, think time 0, GenAI's scheduler default.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ov_tuner.workloads.llm.fresh import trial_in_process
from ov_tuner.workloads.llm.model_file import read_llm
from ov_tuner.workloads.llm.schema import SCHEDULER_DEFAULT, LlmLoad


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--users", default="16,64")
    parser.add_argument("--seconds", default="2,8")
    parser.add_argument("--passes", type=int, default=2)
    args = parser.parse_args()
    model = read_llm(args.model)
    print("pass users window_s  tokens/s(window)  tokens/s(before v11)  timed requests  p90 TTFT ms  p90 TPOT ms")
    for number in range(1, args.passes + 1):
        for users in (int(u) for u in args.users.split(",")):
            for seconds in (float(s) for s in args.seconds.split(",")):
                load = LlmLoad(users=users, prompt_tokens=(256, 512), output_tokens=(64, 128), seconds=seconds,
                               lead_in_s=0.5)
                trial = trial_in_process(model, "CPU", SCHEDULER_DEFAULT, load)
                if not trial.ok:
                    print(f"{number:4} {users:5} {seconds:8.1f}  failed: {trial.error}")
                    continue
                before = trial.output_tokens / trial.wall_s
                print(f"{number:4} {users:5} {seconds:8.1f}  {trial.tokens_per_s:16.0f}  {before:20.0f}  "
                      f"{trial.ttft_ms.size:14}  {trial.ttft_at(90):11.1f}  {trial.tpot_at(90):11.2f}", flush=True)


if __name__ == "__main__":
    main()
