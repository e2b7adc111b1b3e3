"""Each workload's command under time budgets, each from a fresh results file: the wall time against the budget, the
plan it printed, and how many of its answer's comparisons with the baselines it decided (told apart) against how many
it left undecided. Run by hand where the demo has run (its models, photos, clip and sweep's results are used); it
prints a Markdown table. About the sum of the budgets, plus the compiles.

    .venv/bin/python scripts/bench_budget.py [--sweep 60s,2m] [--pipeline 2m,4m] [--llm 2m,5m,10m]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

from ov_tuner.engine.budget import parse_duration

ROOT = Path(__file__).resolve().parent.parent
TOOL = str(ROOT / ".venv" / "bin" / "ov-tuner")
# The demo's steps (scripts/demo), each with its results file given per run.
COMMANDS = {
    "sweep": ["sweep", "models/mobilenet_v2.xml", "--precision", "auto,int8", "--images", "results/photos",
              "--streams", "auto", "--nireq", "auto", "--batch", "1"],
    "pipeline": ["pipeline", "scripts/demo_pipeline.toml", "--seconds", "2"],
    "llm": ["llm", "models/SmolLM2-135M-Instruct.Q4_1.gguf", "--users", "8", "--conversations",
            "scripts/demo_conversations.jsonl", "--think-ms", "500", "--seconds", "2", "--lead-in", "0.5", "--passes",
            "3", "--most-users", "32", "--ttft-ms", "1000", "--tpot-ms", "50"],
}


def decided(answer: dict) -> tuple[int, int]:
    """The answer's comparisons with the baselines told apart, and all of them (gains over each baseline and, for an
    LLM, its walks against each)."""
    flags = [g.get("differs", g.get("measurable")) for g in answer.get("gains", [])]
    flags += [g["differs"] for g in answer.get("walk_gains", [])]
    return sum(bool(f) for f in flags), len(flags)


def run(workload: str, budget: str, folder: Path) -> str:
    out = folder / f"{workload}-{budget}.db"
    started = time.perf_counter()
    done = subprocess.run([TOOL, *COMMANDS[workload], "--out", str(out), "--time-budget", budget], cwd=ROOT,
                          capture_output=True, text=True)
    wall = time.perf_counter() - started
    said = done.stdout.splitlines()
    plan = next((line for line in said if line.startswith("plan: ")), "(no plan line)")
    ending = [line for line in said if line.startswith(("undecided", "the time budget cut"))]
    shown = subprocess.run([TOOL, "recommend", str(out), "--format", "json"], cwd=ROOT, capture_output=True, text=True)
    told, of = decided(json.loads(shown.stdout)) if shown.returncode == 0 else (0, 0)
    print(f"  {workload} {budget}: exit {done.returncode}, {wall:.0f} s; {plan}; {' '.join(ending) or 'nothing cut'}",
          flush=True)
    if done.returncode != 0:
        print("   ", done.stderr.strip().splitlines()[-1:] or "", flush=True)
    share = wall / parse_duration(budget)
    return f"| {workload} | {budget} | {wall:.0f} s ({share:.0%}) | {told} of {of} | {'; '.join(ending) or '-'} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for workload, default in (("sweep", "60s,2m"), ("pipeline", "2m,4m"), ("llm", "2m,5m,10m")):
        parser.add_argument(f"--{workload}", default=default, help=f"time budgets, comma-separated ({default})")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-budget-") as folder:
        for workload in COMMANDS:
            for budget in filter(None, getattr(args, workload).split(",")):
                rows.append(run(workload, budget, Path(folder)))
    print("| command | --time-budget | wall (of the budget) | comparisons told apart | what it left |")
    print("| --- | --- | --- | --- | --- |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
