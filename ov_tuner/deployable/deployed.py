"""What a sweep's results file deploys, for a command that runs it on a model (capacity and soak --from, neighbours,
a pipeline stage's answer): read once, and checked where it is read to be a sweep's results file of that very model,
so that another model's answer never runs on this one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ov_tuner.analyse.capacity import capacity_candidates
from ov_tuner.analyse.points import explicit_points
from ov_tuner.analyse.recommend import accuracy_exclusions, results_answer
from ov_tuner.deployable import SWEEP_WRITER
from ov_tuner.devices.modelfile import ModelSource
from ov_tuner.errors import Given, Input, ResultsFileError
from ov_tuner.schema import ModelInputs, PointConfig, PointResult, Quantization
from ov_tuner.store.results import ResultStore, load_results

# An input, not a flag: renamed once workloads/sweep/neighbours/neighbour.py (it imports it) may change.
FROM_FLAG = Given(Input.FROM)


@dataclass(frozen=True)
class Deployed:
    """The answer of `results`: its stored `point` (the configuration to deploy and its figures); the best batch-1
    points, the answer's first where it is batch 1 (capacity's --top and a pipeline stage take these: each frame is
    one request); how its INT8 IR was made and the sweep's --shape and --layout, to run the same model again."""

    results: Path
    point: PointResult
    batch_one: tuple[PointResult, ...]
    quantization: Quantization | None
    inputs: ModelInputs | None

    @property
    def config(self) -> PointConfig:
        return self.point.config


def deployed_from(results: Path, model: ModelSource, given: Given, top: int = 1) -> Deployed:
    """What `results` deploys on `model`, with its `top` best batch-1 points; a pipeline's or an LLM's results file,
    one without a sweep point, or a sweep of another model is one ResultsFileError line naming `given` (an input, a
    file's key)."""
    stored = load_results(results)
    if not explicit_points(stored.points):
        with ResultStore(results, create=False) as store:
            writer = store.writer()
        if writer is not None and writer.name != SWEEP_WRITER.name:
            raise ResultsFileError(f"{given} {results} is {writer.whose} results file; give a sweep's results file of "
                                   f"{model.path.name}")
        raise ResultsFileError(f"{given} {results} holds no measured sweep point; sweep {model.path.name} into "
                               f"it first (`ov-tuner sweep {model.path} {Input.RESULTS} {results}`)")
    env = stored.environment
    if env.model_sha256 != model.sha256:
        raise ResultsFileError(f"{given} {results} was measured on another model ({env.model_path}), not "
                               f"{model.path}; sweep {model.path.name} first (`ov-tuner sweep {model.path}`) and "
                               "give its results file, or give the model those results are of")
    point = results_answer(stored).winner
    measured = {p.config: p for p in explicit_points(stored.points)}
    batch_one = capacity_candidates(stored.points, stored.confirmations, top, accuracy_exclusions(stored))
    return Deployed(results, point, tuple(measured[c] for c in batch_one), stored.quantization, stored.inputs)
