"""Every workload's results file, registered once: whose it is (store/tables.FileKind), how its answer is read, and
how `show`, `recommend`, `report`, `plot`, `compare` and `export` render it; its deploy forms are present/deploy.FORMS'
field of its AnswerKind. The commands over a results file dispatch through `registered` alone.

A new workload is its folder in ov_tuner/workloads/, its command in cli/, its words and forms in present/, and one
registration here: a module of this package and its line in REGISTRY (tests/test_layout.py keeps every kind
registered with every part)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ov_tuner.errors import BadInputError
from ov_tuner.registry.llm import LLM
from ov_tuner.registry.parts import Asked, Registration
from ov_tuner.registry.pipeline import PIPELINE
from ov_tuner.registry.sweep import SWEEP
from ov_tuner.store.results import ResultStore
from ov_tuner.store.tables import WHOSE, FileKind

__all__ = ["REGISTRY", "Asked", "Registration", "registered", "registered_alike"]

REGISTRY: dict[FileKind, Registration] = {FileKind.SWEEP: SWEEP, FileKind.PIPELINE: PIPELINE, FileKind.LLM: LLM}


def registered(results: Path) -> Registration:
    """The registration of the results file at `results`: its kind's, or the sweep's where it holds no job yet (the
    sweep's reader then says what is missing)."""
    with ResultStore(results, create=False) as store:
        kind = store.kind()
    return REGISTRY[kind or FileKind.SWEEP]


def registered_alike(command: str, results: Sequence[Path]) -> Registration:
    """The one registration every file of `results` has; files of two kinds are one line naming the odd ones."""
    found = [registered(r) for r in results]
    odd = [f"{r} ({WHOSE[f.kind]})" for r, f in zip(results, found, strict=True) if f.kind is not found[0].kind]
    if odd:
        raise BadInputError(f"{command} reads files of one kind: {results[0]} is {WHOSE[found[0].kind]}, "
                            f"{', '.join(odd)} not; give files of one workload")
    return found[0]
