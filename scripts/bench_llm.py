"""Does ov-tuner's LLM trial measure what GenAI itself does? Its output tokens a second, against a plain loop of
GenAI's own batched `generate()` on the same model, setting and request shape, measured side by side in alternating
passes. Run by hand (minutes), not in the tests; the goal is a ratio within 5% of 1.

    .venv/bin/python scripts/bench_llm.py [MODEL.gguf] [--users 8] [--passes 5]

The load is one both can run alike: N users with think time 0, every request the same length (prompt and output),
and no limit on the tokens a step takes, so every request of a batch is prefilled in one step and all end in the same
step: ov-tuner's closed loop then runs batches of N back to back, as `generate()` on N prompts does. (With GenAI's
default 256 batched tokens the prefill is split over steps, the requests end at different steps and a closed loop
refills them one by one: another load than batches, so not a check of the measurement.) The plain loop builds a
fresh ContinuousBatchingPipeline at the same setting, runs one batch to warm up, then batches of N new prompts for
the same seconds, and divides the tokens by the time the batches took. Each side runs in a process of its own.
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
from ov_tuner.workloads.llm.process import trial_in_process
from ov_tuner.workloads.llm.schema import LlmLoad, LlmSetting

# No limit on the tokens a step takes; the rest of GenAI's scheduler default.
UNLIMITED = LlmSetting(max_num_batched_tokens=None)

PLAIN = """
import json, sys, time
import numpy as np, openvino as ov, openvino_genai as g
model, seconds = sys.argv[1], float(sys.argv[5])
users, prompt, output = (int(a) for a in sys.argv[2:5])
scheduler = g.SchedulerConfig()
scheduler.max_num_batched_tokens = 2**64 - 1
pipe = g.ContinuousBatchingPipeline(model, scheduler, "CPU", {}, {})
rng = np.random.default_rng(7)
config = g.GenerationConfig(max_new_tokens=output, min_new_tokens=output, ignore_eos=True)
def batch():
    ids = [ov.Tensor(rng.integers(0, 300, (1, prompt)).astype(np.int64)) for _ in range(users)]
    pipe.generate(ids, [config] * users)
batch()
tokens, started = 0, time.perf_counter()
while time.perf_counter() - started < seconds:
    batch()
    tokens += users * output
print(json.dumps({"tokens_per_s": tokens / (time.perf_counter() - started)}))
"""


def plain(model: str, users: int, prompt: int, output: int, seconds: float) -> float:
    done = subprocess.run([sys.executable, "-c", PLAIN, model, str(users), str(prompt), str(output), str(seconds)],
                          capture_output=True, text=True, check=True)
    return float(json.loads(done.stdout.strip().splitlines()[-1])["tokens_per_s"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model", nargs="?")
    parser.add_argument("--users", type=int, default=8)
    parser.add_argument("--passes", type=int, default=5)
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
        pair = [lambda: trial_in_process(model, "CPU", UNLIMITED, load).tokens_per_s,
                lambda: plain(model.path, args.users, prompt, output, args.seconds)]
        first, second = (pair if number % 2 == 0 else pair[::-1])
        a, b = first(), second()
        ours.append(a if number % 2 == 0 else b)
        theirs.append(b if number % 2 == 0 else a)
        print(f"pass {number + 1}: ov-tuner {ours[-1]:.0f} tokens/s, plain generate() {theirs[-1]:.0f} tokens/s, "
              f"ratio {ours[-1] / theirs[-1]:.3f}")
    ratio = paired_ratio(np.array(ours), np.array(theirs), rerun=False)
    print(f"ov-tuner / plain generate(): {ratio.value:.3f} (95%: {ratio.low:.3f}..{ratio.high:.3f}) over "
          f"{ratio.passes} passes; {model.path}, {args.users} users, {prompt} prompt + {output} output tokens")


if __name__ == "__main__":
    main()
