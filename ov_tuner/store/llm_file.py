"""Reading an LLM's results file whole: the box it was measured in, the job and every trial."""

from __future__ import annotations

from pathlib import Path

from ov_tuner.schema.llm import StoredLlm
from ov_tuner.store.results import ResultStore


def load_llm(path: Path) -> StoredLlm | None:
    """A results file's LLM records, or None where it holds none (a sweep's or a pipeline's file)."""
    with ResultStore(path, create=False) as store:
        job, env = store.llm_job(), store.environment()
        return None if job is None else StoredLlm(str(path), env, job,
                                                  tuple(store.llm_trials()), tuple(store.llm_outputs()))
