"""Does ov-tuner's LLM trial measure what GenAI itself does? Its output tokens a second, against a plain loop of
GenAI's own batched `generate()` on the same model, setting and requests, side by side on one pipeline. Run by hand
(minutes), not in the tests; the goal is a ratio within 5% of 1.

    .venv/bin/python scripts/bench_llm.py [MODEL.gguf] [--users 8] [--passes 5] [--rounds 3] [--seconds 4]

The load is one both can run alike: N users with think time 0, every request the same length (prompt and output),
and no limit on the tokens a step takes, so every request of a batch is prefilled in one step and all end in the same
step: ov-tuner's closed loop then runs batches of N back to back, as `generate()` on N prompts does. (With GenAI's
default 256 batched tokens the prefill is split over steps, the requests end at different steps and a closed loop
refills them one by one: another load than batches, so not a check of the measurement.)

Each pass is a process of its own: it builds one ContinuousBatchingPipeline at that setting, runs one batch to warm
it, then `--rounds` times, in alternating order, ov-tuner's trial loop (ov_tuner.workloads.llm.stepping.run_load: the
users' arrivals, the steps, the lead-in and the counted window, what it counts) and batches of N of the same
requests through `generate()` for the same seconds (their tokens over the time the batches took). Side by side on
one pipeline, seconds apart, so what differs is the measurement and not the pipeline or the host's moment (each
side in a process of its own, minutes apart, is the other way this script was run: docs/llm.md has both). What a
trial adds before its loop (a fresh pipeline, its first request alone) is timed apart and counted nowhere.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from ov_tuner.stats.headtohead import paired_ratio
from ov_tuner.workloads.llm.gguf import LlamaShape, write_llama_gguf
from ov_tuner.workloads.llm.model_file import read_llm
from ov_tuner.workloads.llm.process import TRIAL, asked_json
from ov_tuner.workloads.llm.schema import LlmLoad, LlmModel, LlmSetting

# No limit on the tokens a step takes; the rest of GenAI's scheduler default.
UNLIMITED = LlmSetting(max_num_batched_tokens=None)

PASS = """
import json, sys, time
import openvino as ov, openvino_genai as g
from ov_tuner.workloads.llm.schema import LlmLoad, LlmModel, LlmSetting
from ov_tuner.workloads.llm.stepping import run_load, stop_load
from ov_tuner.workloads.llm.trial import open_pipeline, requests_for
asked, rounds = json.loads(sys.stdin.readline()), int(sys.argv[1])
model, load = LlmModel.from_stored(asked["model"]), LlmLoad.from_stored(asked["load"])
pipe, _ = open_pipeline(model.path, LlmSetting(**asked["setting"]), asked["device"])
requests = requests_for(pipe, model, load)
config = g.GenerationConfig(max_new_tokens=load.output_tokens[0], min_new_tokens=load.output_tokens[0],
                            ignore_eos=True)
def batch():
    pipe.generate([ov.Tensor(next(requests).prompt.reshape(1, -1)) for _ in range(load.users)],
                  [config] * load.users)
    return load.users * load.output_tokens[0]
def plain():
    tokens, started = 0, time.perf_counter()
    while time.perf_counter() - started < load.seconds:
        tokens += batch()
    return tokens / (time.perf_counter() - started)
def ours():
    tally, _, left = run_load(pipe, load, requests)
    stop_load(pipe, left)
    return tally.window_tokens / tally.counted_s
batch()
for number in range(rounds):
    pair = (ours, plain) if number % 2 == 0 else (plain, ours)
    found = {f.__name__: f() for f in pair}
    print(json.dumps(found), flush=True)
"""


def one_pass(model: LlmModel, load: LlmLoad, rounds: int) -> list[dict[str, float]]:
    """The pairs (ov-tuner's loop, plain `generate()`) of one process, one pipeline."""
    done = subprocess.run([sys.executable, "-c", PASS, str(rounds)], input=asked_json(TRIAL, model, "CPU", UNLIMITED,
                                                                                       load),
                          capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model", nargs="?")
    parser.add_argument("--users", type=int, default=8)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0)
    args = parser.parse_args()
    path = Path(args.model) if args.model else write_llama_gguf(
        Path(tempfile.mkdtemp()) / "demo.gguf", LlamaShape(layers=4, width=512, heads=8, kv_heads=4, feed_forward=1536))
    model = read_llm(path)
    prompt, output = 128, 64
    load = LlmLoad(users=args.users, prompt_tokens=(prompt, prompt), output_tokens=(output, output),
                   seconds=args.seconds, lead_in_s=1.0)
    ours, theirs = [], []
    for number in range(args.passes):
        pairs = one_pass(model, load, args.rounds)
        ours += [p["ours"] for p in pairs]
        theirs += [p["plain"] for p in pairs]
        said = ", ".join(f"{p['ours']:.0f}/{p['plain']:.0f}" for p in pairs)
        print(f"pass {number + 1}: ov-tuner/plain generate() tokens/s {said}; ratio "
              f"{np.mean([p['ours'] / p['plain'] for p in pairs]):.3f}", flush=True)
    ratio = paired_ratio(np.array(ours), np.array(theirs), rerun=False)
    print(f"ov-tuner / plain generate(): {ratio.value:.3f} (95%: {ratio.low:.3f}..{ratio.high:.3f}) over "
          f"{ratio.passes} pairs in {args.passes} processes; {model.path}, {args.users} users, {prompt} prompt + "
          f"{output} output tokens, {args.seconds:g} s windows")


if __name__ == "__main__":
    main()
