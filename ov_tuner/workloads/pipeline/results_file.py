"""A pipeline's results file: opened with the pipeline's records beside every results file's (the environment), and
read whole: the pipeline tuned, the search's starting points, each stage's solo points and every trial."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ov_tuner.schema import Environment
from ov_tuner.store.results import ResultStore
from ov_tuner.workloads.pipeline.records import PipelineRecords
from ov_tuner.workloads.pipeline.schema import HarnessCeiling, Origin, Pipeline, PipelineTrial, SoloPoint, Split


class PipelineStore(ResultStore, PipelineRecords):
    """A results file with a pipeline's records: the pipeline workload's own, kept out of ResultStore, which every
    workload shares; its tables alone, not a sweep's."""

    OWN_TABLES = PipelineRecords.OWN_TABLES


@dataclass(frozen=True)
class StoredPipeline:
    """Everything a results file holds of a pipeline, for its answer, `show` and `report`."""

    path: Path
    environment: Environment
    pipeline: Pipeline
    starts: tuple[tuple[Split, Origin], ...]
    solo: tuple[SoloPoint, ...]
    trials: tuple[PipelineTrial, ...]
    harness: HarnessCeiling | None = None  # measured after the rounds; None before, or in a file older than v12


def load_pipeline(path: Path) -> StoredPipeline | None:
    """A results file's pipeline, or None where it holds none (a sweep's or an LLM's file)."""
    with PipelineStore(path, create=False) as store:
        return stored_pipeline(store)


def stored_pipeline(store: PipelineStore) -> StoredPipeline | None:
    """What an open store holds of a pipeline (the running job reads its own this way), None where it holds none."""
    pipeline, env = store.pipeline(), store.environment()
    if pipeline is None or env is None:
        return None
    return StoredPipeline(store.path, env, pipeline, tuple(store.starts()), tuple(store.solo_points()),
                          tuple(store.pipeline_trials()), harness=store.harness())
