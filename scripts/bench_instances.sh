#!/usr/bin/env bash
# Several instances of a small LLM against one on a many-core host, run by hand (minutes): ov-tuner llm on a random
# model of SmolLM2-135M-Instruct's shape and file types (scripts/llm_model.py: the real model's speed; a host that
# can fetch it may give the real one as MODEL), generated prompts of 64-512 tokens and outputs of 32-64, a budget of
# p90 TTFT 1 s and TPOT 50 ms; one instance with every core (GenAI left alone) against pinned instances, side by side
# in passes, then the walks to the most users each serves within the budget, walked alternately. The answer and the
# results file (OUT_DIR/instances.db: `ov-tuner report` draws it) are what it leaves.
#     bash scripts/bench_instances.sh OUT_DIR [MODEL]
# Environment: USERS (the load searched at, default 16), INSTANCES (the instance counts searched, default 1, 2 and 4
# where the host has the cores), STOP_AFTER (seconds; then Ctrl-C: the trial under way ends and the answer is said
# from the windows measured, for a machine lent for minutes). The lent 16-core machine has no OpenVINO: there, first
# unpack the trimmed site ../shared/device/make_site.sh builds and put it and this checkout on PYTHONPATH; PYTHON
# names the interpreter (default: .venv/bin/python, else python3).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench_instances.sh OUT_DIR [MODEL]}; model=${2:-$out/smollm2-shape.gguf}
python=${PYTHON:-$([ -x .venv/bin/python ] && echo .venv/bin/python || echo python3)}
mkdir -p "$out"
[ -f "$model" ] || "$python" scripts/llm_model.py "$model"
cores=$("$python" -c "import os; print(len(os.sched_getaffinity(0)))")
if [ -z "${INSTANCES:-}" ]; then
    INSTANCES=1; for n in 2 4; do [ "$n" -le "$cores" ] && INSTANCES="$INSTANCES,$n"; done
fi
echo "bench_instances: $cores cores, instances $INSTANCES, ${USERS:=16} users"
llm=("$python" -m ov_tuner llm "$model" --out "$out/instances.db" --users "$USERS" --prompt-tokens 64-512
     --output-tokens 32-64 --seconds 2 --lead-in 0.5 --batched-tokens 256 --kv-precision default
     --instances "$INSTANCES" --passes 2 --most-users 128 --ttft-ms 1000 --tpot-ms 50)
if [ -n "${STOP_AFTER:-}" ]; then
    status=0; timeout -s INT -k 120 "$STOP_AFTER" "${llm[@]}" || status=$?
    [ "$status" -eq 0 ] || [ "$status" -eq 124 ] || [ "$status" -eq 130 ] || exit "$status"
else
    "${llm[@]}"
fi
