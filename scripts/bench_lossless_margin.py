"""How far does greedy text alike move from one rounding to another? The measurement behind
ov_tuner.workloads.llm.agreement.LOSSLESS_MARGIN: a lossless knob (prefix caching, prompt lookup) is held back where
its greedy text alike with its twin's falls more than the margin below the floor, the twin against itself with the
prompts chunked otherwise. A lossless knob changes the order of the sums as a chunking does, so the margin must cover
how far a share can fall below that floor from rounding alone.

What it reads: the held-apart requests ov-tuner reads what the model says on (ov_tuner.workloads.llm.outputs), greedy,
at each chunking of a step's tokens (`--chunks`; 0: no limit), each setting otherwise GenAI's scheduler default, then
with prefix caching and with prompt lookup at each. For each chunking as the twin: its floor (ov-tuner's rounding
twin), the lowest and highest share any other chunking gives against it, and how far the lowest falls below the
floor; then each lossless knob's share against its twin, beside the floor. Run by hand (a couple of minutes on 2
cores), not in the tests.

    .venv/bin/python scripts/bench_lossless_margin.py models/SmolLM2-135M-Instruct.Q4_1.gguf \\
        --conversations scripts/demo_conversations.jsonl
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ov_tuner.workloads.llm.agreement import LOSSLESS_MARGIN, agreement, rounding_twin
from ov_tuner.workloads.llm.ir import served_model
from ov_tuner.workloads.llm.model_file import read_llm
from ov_tuner.workloads.llm.outputs import greedy_outputs
from ov_tuner.workloads.llm.schema import SCHEDULER_DEFAULT, LlmLoad, LlmSetting


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--conversations", default="scripts/demo_conversations.jsonl")
    parser.add_argument("--chunks", default="128,256,512,1024,2048,0", help="a step's most tokens (0: no limit)")
    args = parser.parse_args()
    model = served_model(read_llm(args.model))
    load = LlmLoad(conversations_file=args.conversations, think_ms=500)
    chunkings = [replace(SCHEDULER_DEFAULT, max_num_batched_tokens=int(n) or None) for n in args.chunks.split(",")]
    knobs: dict[str, Callable[[LlmSetting], LlmSetting]] = {
        "prefix caching": lambda s: replace(s, enable_prefix_caching=True),
        "prompt lookup": lambda s: replace(s, lookup_tokens=5, lookup_ngram=3)}
    needed = [*chunkings, *(rounding_twin(s) for s in chunkings),
              *(with_knob(s) for s in chunkings for with_knob in knobs.values())]
    said: dict[LlmSetting, tuple[tuple[int, ...], ...]] = {}
    for setting in dict.fromkeys(needed):
        outputs, _ = greedy_outputs(model, "CPU", setting, load, None)
        assert outputs.error is None, outputs.error
        said[setting] = outputs.tokens

    def name(s: LlmSetting) -> str:
        return f"{s.max_num_batched_tokens or 'no limit':>8}"

    falls = []
    print(f"greedy text alike over {len(said[chunkings[0]])} held-apart requests (LOSSLESS_MARGIN {LOSSLESS_MARGIN})")
    for twin in chunkings:
        floor = agreement(said[rounding_twin(twin)], said[twin])
        others = [agreement(said[s], said[twin]) for s in chunkings if s != twin]
        falls.append(floor - min(others))
        knob_shares = ", ".join(f"{knob} {agreement(said[with_knob(twin)], said[twin]):.3f}"
                                for knob, with_knob in knobs.items())
        print(f"twin {name(twin)}: floor {floor:.3f} (its rounding twin {name(rounding_twin(twin)).strip()}); other "
              f"chunkings {min(others):.3f}..{max(others):.3f}, the lowest {floor - min(others):+.3f} below the "
              f"floor; {knob_shares}")
    print(f"the most a chunking fell below a floor: {max(falls):.3f}")


if __name__ == "__main__":
    main()
