"""What a pipeline search says while it runs: each solo window, and each trial with its split and verdict."""

from __future__ import annotations

from ov_tuner.present.words.numbers import ms_text
from ov_tuner.schema import cell_text
from ov_tuner.workloads.pipeline.present.words import split_text
from ov_tuner.workloads.pipeline.schema import Pipeline, PipelineStage, PipelineTrial, SoloPoint


def solo_line(stage: PipelineStage, point: SoloPoint) -> str:
    """'detect alone, 2 x 4: 123.4 FPS'."""
    return f"{stage.name} alone, {cell_text(point.setting.streams, point.setting.nireq)}: {point.fps:.1f} FPS"


def trial_line(pipeline: Pipeline, trial: PipelineTrial) -> str:
    """'search | detect 1 x 2, 1 thread | classify ... | decode 1 thread: 4 cameras, p99 85 ms, 0 of 240 dropped:
    serves; busiest classify (93%)'."""
    load, target = trial.load, pipeline.target
    phase = f"pass {trial.pass_number}" if trial.pass_number else "search"
    verdict = "serves" if load.serves(target) else "does not serve"
    if load.disturbed:
        verdict += f" (other processes used {load.foreign_cpu or 0:.0%} of the CPUs: a failure then is tried again)"
    busiest = trial.busiest
    if busiest is None:
        return f"{phase} | {split_text(pipeline, trial.split)}: does not compile, so serves no camera"
    rate = f" at {trial.fps:.1f} FPS each" if trial.fps else ""
    return (f"{phase} | {split_text(pipeline, trial.split)}: {load.cameras} cameras{rate}, p{target.percentile:g} "
            f"{ms_text(load.percentile_ms(target.percentile))}, {load.dropped} of {load.offered} dropped: {verdict}; "
            f"busiest {busiest.name} ({busiest.utilisation:.0%})")
