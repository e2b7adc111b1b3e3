"""Is the answer ever below OpenVINO left alone? Per zoo model, the demo's default sweep, then its answer measured
interleaved against "OpenVINO default" (PERFORMANCE_HINT=THROUGHPUT and nothing else, what `benchmark_app -hint
throughput` runs) and against the explicit point equal to that hint's own choice (its streams and requests, at the
precision it ran). Target: the answer never below the default beyond noise.

    .venv/bin/python scripts/bench_default.py [--models mobilenet_v2,resnet50] [--passes 10] [--window 1]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import openvino as ov

from ov_tuner.analyse.recommend import recommend
from ov_tuner.devices.compiler import Compiler
from ov_tuner.devices.environment import cpu_model
from ov_tuner.devices.modelfile import ModelSource, open_model_source
from ov_tuner.devices.runtime import Runtime
from ov_tuner.model.zoo import build_zoo_model
from ov_tuner.present.words.numbers import factor
from ov_tuner.schema import CompileInfo, ConfirmRule, Mode, PointConfig, Precision, SweepSpec
from ov_tuner.stats.headtohead import HeadToHead
from ov_tuner.store.results import ResultStore, load_results
from ov_tuner.workloads.sweep import run_sweep
from ov_tuner.workloads.sweep.confirm import run_confirmation
from ov_tuner.workloads.sweep.present.words.answer import recommendation_text

HINTS = {"f32": Precision.FP32, "bf16": Precision.BF16, "f16": Precision.FP16}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="mobilenet_v2,resnet50")
    parser.add_argument("--passes", type=int, default=10)
    parser.add_argument("--window", type=float, default=1.0)
    args = parser.parse_args()
    runtime = Runtime()
    cpu = runtime.device_info("CPU")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            model = build_zoo_model(name, Path(tmp))[0]
            out = Path(tmp) / f"{name}.db"
            start = time.perf_counter()
            run_sweep(SweepSpec(model=model, out=out))
            stored = load_results(out)
            rec = recommend(stored.points, confirmations=stored.confirmations)
            print(f"{name}: sweep {time.perf_counter() - start:.0f} s; {recommendation_text(rec)}")
            default = next(p for p in stored.points if p.config.mode is Mode.DEFAULT)
            assert default.compile is not None
            ran = HINTS.get(default.compile.inference_precision, Precision.FP32)
            twin = PointConfig("CPU", ran, 1, default.streams, default.nireq)
            configs = list(dict.fromkeys([rec.winner.config, default.config, twin]))
            source = open_model_source(model)

            def compile_config(config: PointConfig, source: ModelSource = source) -> tuple[ov.CompiledModel,
                                                                                              CompileInfo]:
                return Compiler(runtime, source).compile(config.compile_key, cpu)

            with ResultStore(Path(tmp) / f"{name}-h2h.db") as store:
                rule = replace(ConfirmRule(), passes=args.passes, max_passes=args.passes, window_s=args.window)
                run_confirmation(compile_config, configs, store, "CPU", rule)
                (confirmation,) = store.confirmations()
            head = HeadToHead.of(confirmation)
            assert head is not None
            figures = {f.contender.config: f for f in head.figures}
            answer, base = figures[rec.winner.config], figures[default.config]
            versus_default = head.ratio(answer.contender, base.contender)
            versus_twin = head.ratio(answer.contender, figures[twin].contender) if twin in figures else None
            rows.append((name, f"{rec.winner.config.precision.value} {answer.contender.label()}", answer.fps,
                         f"{base.contender.label()} ran {default.compile.ran}", base.fps, versus_default,
                         f"{twin.precision.value} {figures[twin].contender.label()}" if twin in figures else "-",
                         versus_twin))
    print(f"\nhost: {cpu_model()}; {args.passes} interleaved passes of {args.window:g} s windows per model")
    print("| model | answer | FPS | OpenVINO default | FPS | answer / default (95%) | explicit twin of the hint's "
          "choice | answer / twin (95%) | answer below default beyond noise? |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, answer_label, fps, base_label, base_fps, vd, twin_label, vt in rows:
        below = "yes" if vd.high < 1 else "no"
        print(f"| {name} | {answer_label} | {fps:.1f} | {base_label} | {base_fps:.1f} | {factor(vd)} | "
              f"{twin_label} | {factor(vt) if vt else '-'} | {below} |")


if __name__ == "__main__":
    main()
