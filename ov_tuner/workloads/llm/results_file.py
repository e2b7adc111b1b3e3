"""An LLM's results file: opened with the LLM's records beside every results file's (the environment, the box), and
read whole: the box it was measured in, the job and every trial."""

from __future__ import annotations

from pathlib import Path

from ov_tuner.store.results import ResultStore
from ov_tuner.workloads.llm.measured import StoredLlm
from ov_tuner.workloads.llm.records import LlmRecords


class LlmStore(ResultStore, LlmRecords):
    """A results file with an LLM's records: the LLM workload's own, kept out of ResultStore, which every workload
    shares; its tables alone, not a sweep's."""

    OWN_TABLES = LlmRecords.OWN_TABLES

    def stored_llm(self) -> StoredLlm | None:
        """Everything the file holds of its LLM job, or None where it holds none."""
        job = self.llm_job()
        return None if job is None else StoredLlm(
            str(self.path), self.environment(), job, trials=tuple(self.llm_trials()),
            outputs=tuple(self.llm_outputs()), harness=tuple(self.llm_harness()), roofline=self.llm_roofline())


def load_llm(path: Path) -> StoredLlm | None:
    """A results file's LLM records, or None where it holds none (a sweep's or a pipeline's file)."""
    with LlmStore(path, create=False) as store:
        return store.stored_llm()
