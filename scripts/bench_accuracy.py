"""What each precision costs, speed beside output quality, on the zoo's four real architectures.

Per model: the default sweep over fp32, fp16 and bf16 (smart search, hint baselines, confirmation round, outputs
against the FP32 reference on 32 inputs) into a fresh file; then per precision what ran, its FPS against fp32
(head to head where the confirmation round measured both) and the accuracy figures.

    .venv/bin/python scripts/bench_accuracy.py [--models mobilenet_v2,resnet50,bert_encoder,ssdlite_mobilenet_v2]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from ov_tuner.analyse.precisions import precision_speeds, ran_by_scope
from ov_tuner.devices.environment import cpu_model
from ov_tuner.model.zoo import build_zoo_model
from ov_tuner.present.words.accuracy import speed_text
from ov_tuner.present.words.numbers import cosine_text
from ov_tuner.schema import Precision, SweepSpec
from ov_tuner.store.results import load_results
from ov_tuner.sweep import run_sweep

MODELS = ("mobilenet_v2", "resnet50", "bert_encoder", "ssdlite_mobilenet_v2")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    print(f"host: {cpu_model()}")
    print("| model | precision | ran | FPS vs fp32 | cosine (least) | top-1 agreement | max abs error | inputs |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            model = build_zoo_model(name, Path(tmp))[0]
            out = Path(tmp) / f"{name}.db"
            run_sweep(SweepSpec(model=model, out=out, precisions=(Precision.FP32, Precision.FP16, Precision.BF16)))
            stored = load_results(out)
            speeds, ran = precision_speeds(stored.points, stored.confirmations), ran_by_scope(stored.points)
            for a in stored.accuracies:
                key = (a.device, a.precision, a.batch)
                top1 = f"{a.top1:.1%}" if a.top1 is not None else "-"
                worst = max((o.max_abs for o in a.outputs), default=0.0)
                cosine = cosine_text(a.cosine) if a.cosine is not None else a.error or "-"
                print(f"| {name} | {a.precision.value} | {ran.get(key, '-')} | "
                      f"{'reference' if a.precision is Precision.FP32 else speed_text(speeds.get(key))} | {cosine} | "
                      f"{top1} | {worst:.3g} | {a.inputs} |")


if __name__ == "__main__":
    main()
