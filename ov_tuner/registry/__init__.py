"""Every workload, registered as a plug-in: each installed package's `ov_tuner.workloads` entry points name a
Registration (ov_tuner.registry.parts), ov-tuner's own five workloads' as a third party's would (pyproject.toml). A
results file keeps the name of the workload that wrote it, so the commands over a results file (`show`, `recommend`,
`report`, `plot`, `compare`, `export`) dispatch through `registered` alone, and the command line adds each
workload's commands that it does not hold itself.

A new workload is a package of its own: its Registration, and one line under `[project.entry-points."ov_tuner.
workloads"]` in its pyproject.toml; nothing in ov_tuner/ changes (tests/plugin_workload is one, run end to end by
tests/test_plugin.py)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path

from ov_tuner.errors import BadInputError
from ov_tuner.registry.parts import Asked, Registration

__all__ = ["GROUP", "Asked", "Registration", "registered", "registered_alike", "registry"]

# The entry point group a workload registers in.
GROUP = "ov_tuner.workloads"


@cache
def registry() -> dict[str, Registration]:
    """Every installed workload by its registered name, as the entry points list them. An entry point whose object
    is not a Registration named as the entry point is a packaging mistake of that workload's: said in one line."""
    found: dict[str, Registration] = {}
    for point in sorted(entry_points(group=GROUP), key=lambda p: p.name):
        registration = point.load()
        if not isinstance(registration, Registration) or registration.name != point.name:
            raise BadInputError(f"the {GROUP} entry point {point.name} = {point.value} is not a Registration named "
                                f"{point.name}; fix or uninstall the package that declares it")
        found.setdefault(point.name, registration)  # a name installed twice (an editable copy): the first found
    return found


def registered(results: Path) -> Registration:
    """The registration of the workload that wrote the results file at `results`, or, where none has claimed it yet,
    the one that reads such a file (and says what it lacks)."""
    from ov_tuner.store.results import ResultStore  # imports numpy: `ov-tuner --help` goes without
    with ResultStore(results, create=False) as store:
        writer = store.writer()
    workloads = registry()
    if writer is None:
        return next(r for r in workloads.values() if r.reads_unclaimed)
    if writer.name not in workloads:
        raise BadInputError(f"{results} is {writer.whose} results file, written by the workload {writer.name}, which "
                            f"is not installed here: install the package that provides it")
    return workloads[writer.name]


def registered_alike(command: str, results: Sequence[Path]) -> Registration:
    """The one registration every file of `results` has; files of two kinds are one line naming the odd ones."""
    found = [registered(r) for r in results]
    odd = [f"{r} ({f.writer.whose})" for r, f in zip(results, found, strict=True) if f.name != found[0].name]
    if odd:
        raise BadInputError(f"{command} reads files of one kind: {results[0]} is {found[0].writer.whose}, "
                            f"{', '.join(odd)} not; give files of one workload")
    return found[0]
