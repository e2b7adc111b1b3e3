"""What a precision costs a real LLM, and what it buys: KV cache u8 and u4, and the weights compressed by NNCF to int8
and int4 (in the folder GenAI converts the GGUF to), each against GenAI's default on SmolLM2-135M-Instruct with the
demo's real prompts (scripts/demo_prompts.jsonl) and budget (p90 TTFT 1 s, TPOT 50 ms). Per setting: next tokens
chosen alike along f32's own greedy continuation, greedy text alike with GenAI's default's, the lowest cosine of the
first token's logits against f32, output tokens a second at 8 users (the search's trial), and the users served
within the budget (the capacity walk, with its 95% interval); weights NNCF cannot compress further (a quantized
GGUF's) are said, not measured. Run by hand (about 20 minutes on 2 cores), not in the
tests; it prints a Markdown table.

    .venv/bin/python scripts/llm_costs.py models/SmolLM2-135M-Instruct.Q4_1.gguf results/llm_costs.db
"""

from __future__ import annotations

import sys
from pathlib import Path

from ov_tuner.errors import BadInputError, worded
from ov_tuner.workloads.llm.ir import served_model
from ov_tuner.workloads.llm.job import run_llm
from ov_tuner.workloads.llm.measured import LlmTrial
from ov_tuner.workloads.llm.model_file import read_llm
from ov_tuner.workloads.llm.present.words_setting import setting_text
from ov_tuner.workloads.llm.schema import SCHEDULER_DEFAULT, LlmBudget, LlmLoad, LlmSetting, LlmSpace
from ov_tuner.workloads.llm.weights import WEIGHTS, compressed_folder
from ov_tuner.workloads.llm.workload import LlmSpec

ROWS = (SCHEDULER_DEFAULT, LlmSetting(kv_cache_precision="u8"), LlmSetting(kv_cache_precision="u4"),
        LlmSetting(weights="int8"), LlmSetting(weights="int4"))


def main(model: Path, out: Path) -> None:
    weights, refused = _compressible(model)
    load = LlmLoad(users=8, prompts_file="scripts/demo_prompts.jsonl", seconds=2.0, lead_in_s=0.5)
    space = LlmSpace(batched_tokens=(256,), kv_cache_precisions=(None, "u8", "u4"), weights=(None, *weights))
    rows = [r for r in ROWS if r.weights is None or r.weights in weights]
    # every row scored and walked alike: no round picks among them, no agreement limit holds one back
    spec = LlmSpec(model=model, out=out, load=load, budget=LlmBudget(ttft_ms=1000.0, tpot_ms=50.0), space=space,
                   passes=0, most_users=32, min_agreement=0.0, also_walk=tuple(rows))

    def seen(trial: LlmTrial) -> None:
        print(f"  {setting_text(trial.setting)}: {trial.error or f'{trial.tokens_per_s:.0f} tokens/s'}", flush=True)

    answer = run_llm(spec, seen)
    searched = {f.setting: f for f in answer.searched}
    failed = dict(answer.failed)
    walks = {w.setting: w for w in answer.walks}
    print("| setting | next tokens alike | greedy text alike | first-token cosine | tokens/s (8 users) | users within "
          "the budget (95%) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in ROWS:
        if row.weights in refused:
            print(f"| {setting_text(row)} | not made: {refused[row.weights]} | | | | |")
        elif row in failed:
            print(f"| {setting_text(row)} | failed: {failed[row]} | | | | |")
        else:
            figures, walk = searched.get(row), walks.get(row)
            served = "-" if walk is None else f"{walk.served:.0f} ({walk.found.low:.0f}..{walk.found.high:.0f})"
            print(f"| {setting_text(row)} | {_share(answer.next_tokens.get(row))} | "
                  f"{_share(answer.agreements.get(row))} | {answer.cosines.get(row, float('nan')):.5f} | "
                  f"{'-' if figures is None else f'{figures.tokens_per_s:.0f}'} | {served} |")
    print(f"GenAI {answer.job.genai_version}; f32 inference and KV cache with the GGUF's weights as the most exact")


def _compressible(model: Path) -> tuple[tuple[str, ...], dict[str, str]]:
    """The weights NNCF compresses in the model's folder, and why each other one is not made."""
    served = served_model(read_llm(model))
    made, refused = [], {}
    for weights in WEIGHTS:
        try:
            compressed_folder(served, weights)
            made.append(weights)
        except BadInputError as e:
            refused[weights] = worded(e.message, lambda given: given.value)
    return tuple(made), refused


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python scripts/llm_costs.py MODEL.gguf OUT.db")
    main(Path(sys.argv[1]), Path(sys.argv[2]))
