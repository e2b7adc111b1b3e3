"""Does the answer hold? The demo's default sweep of MobileNet-v2, run again and again into fresh files.

Each run is `ov-tuner sweep mobilenet_v2.xml` with the demo's defaults (--precision auto, smart search, hint
baselines and OpenVINO default, confirmation round) into a new results file; then the recommendation, the rule
that chose it, its confirmed gains and ratios, the wall time and the confirmation round's share of it. Targets:
- the same configuration deployed in every run, or the same set within noise of the leader and the same one
  deployed from it;
- every stated gain's 95% interval overlaps across the runs; beside each, the spread of its point estimates
  across the runs, against the rerun spread the intervals assume (RERUN_SD);
- the confirmation round costs at most 25% of the sweep's wall time.

    .venv/bin/python scripts/bench_repeat.py [--runs 3] [--precision auto]
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ov_tuner.analyse.recommend import Recommendation, recommend
from ov_tuner.commandline.flags import parse_precisions
from ov_tuner.devices.environment import cpu_model
from ov_tuner.model.zoo import build_zoo_model
from ov_tuner.present.words.numbers import gain_inline
from ov_tuner.schema import PointConfig, SweepSpec
from ov_tuner.stats.headtohead import RERUN_SD, Ratio
from ov_tuner.store.results import load_results
from ov_tuner.workloads.sweep import run_sweep
from ov_tuner.workloads.sweep.present.words.answer import gain_lines, recommendation_text, rule_text

CONFIRM_SHARE_TARGET = 0.25


@dataclass(frozen=True)
class Run:
    wall_s: float
    confirm_s: float
    rec: Recommendation

    @property
    def choice(self) -> PointConfig:
        return self.rec.winner.config

    def near(self) -> dict[PointConfig, str]:
        """The configurations this run found within noise and the tie margin of its leader, its choice and the
        leader included, with their labels."""
        answer = self.rec.answer
        if answer is None:
            return {self.choice: self.choice.label()}
        found = [answer.deploy, answer.leader, *(s.figures for s in answer.near)]
        return {f.contender.config: f"{f.contender.config.precision.value} {f.contender.label()}" for f in found}

    def gains(self) -> dict[str, Ratio]:
        """Every stated gain, by what it compares: the baselines and the precision ratios."""
        answer = self.rec.answer
        if answer is None:
            return {}
        found = {f"over {s.figures.contender.config.mode.hint_name}": s.ratio for s in answer.gains}
        for r in answer.precision_ratios:
            found[f"{r.numerator.contender.config.precision.value}/{r.denominator.contender.config.precision.value} "
                  f"b{r.batch}"] = r.ratio
        return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--precision", default="auto")
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        model = build_zoo_model("mobilenet_v2", Path(tmp))[0]
        for i in range(args.runs):
            out = Path(tmp) / f"run{i}.db"
            start = time.perf_counter()
            summary = run_sweep(SweepSpec(model=model, out=out, precisions=parse_precisions(args.precision)))
            wall = time.perf_counter() - start
            stored = load_results(out)
            run = Run(wall, summary.confirm_s, recommend(stored.points, confirmations=stored.confirmations))
            runs.append(run)
            print(f"run {i + 1}: {wall:.0f} s, confirmation {summary.confirm_s:.0f} s "
                  f"({summary.confirm_s / wall:.0%}); {recommendation_text(run.rec)}")
            print(f"    rule: {rule_text(run.rec)}")
            for line in gain_lines(run.rec):
                print(f"    {line}")

    print(f"\nmobilenet_v2 on {cpu_model()}, precisions {args.precision}")
    print("run  wall s  confirm  deploy                         FPS  rule      within noise and 5% of the leader")
    for i, run in enumerate(runs, 1):
        near = run.near()
        others = ", ".join(sorted(name for c, name in near.items() if c != run.choice)) or "-"
        rule = run.rec.answer.rule.value if run.rec.answer else "-"
        print(f"{i:3} {run.wall_s:7.0f} {run.confirm_s / run.wall_s:8.0%}  {near[run.choice]:28} {run.rec.fps:7.1f}  "
              f"{rule:8}  {others}")

    choices = {run.choice for run in runs}
    print(f"\ndeployed: {len(choices)} distinct configuration(s) in {len(runs)} runs (target 1)")
    for key in sorted({k for run in runs for k in run.gains()}):
        ratios = [run.gains()[key] for run in runs if key in run.gains()]
        overlap = max(r.low for r in ratios) <= min(r.high for r in ratios)
        spread = statistics.stdev(math.log(r.value) for r in ratios) if len(ratios) > 1 else 0.0
        print(f"gain {key}: " + ", ".join(gain_inline(r) for r in ratios)
              + f" -> intervals {'overlap' if overlap else 'DO NOT overlap'}; run-to-run sd of log ratio "
                f"{spread:.3f} (intervals assume {RERUN_SD})")
    worst = max(run.confirm_s / run.wall_s for run in runs)
    print(f"confirmation share of the wall time: at most {worst:.0%} (target <= {CONFIRM_SHARE_TARGET:.0%})")


if __name__ == "__main__":
    main()
