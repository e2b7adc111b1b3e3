"""Every workload, registered as a plug-in: each installed package's `ov_tuner.workloads` entry points name a
Registration (ov_tuner.registry.parts), ov-tuner's own (the sweep, the pipeline, the LLM: docs/architecture.md says
why capacity, neighbours and the jobs are parts of the sweep's) as a third party's would, in pyproject.toml. A
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
from ov_tuner.registry.parts import Asked, Registration, api_mismatch
from ov_tuner.store.connection import Connection

__all__ = ["GROUP", "Asked", "Registration", "registered", "registered_alike", "registry", "registry_problems"]

# The entry point group a workload registers in.
GROUP = "ov_tuner.workloads"


@cache
def _installed() -> tuple[dict[str, Registration], tuple[str, ...]]:
    """Every installed workload by its registered name (in the order of names), and a line for each entry point that
    does not load as a Registration named as the entry point: a packaging mistake of that workload's, left out so
    that the others still run."""
    found: dict[str, Registration] = {}
    problems: list[str] = []
    for point in sorted(entry_points(group=GROUP), key=lambda p: p.name):
        try:
            registration = point.load()
        except Exception as e:  # a third party's module: whatever it raises, it is that package's
            problems.append(f"the workload {point.name} ({point.value}) did not load ({type(e).__name__}: {e}); fix "
                            "or uninstall the package that declares it")
            continue
        if not isinstance(registration, Registration) or registration.name != point.name:
            problems.append(f"the {GROUP} entry point {point.name} = {point.value} is not a Registration named "
                            f"{point.name}; fix or uninstall the package that declares it")
            continue
        mismatch = api_mismatch(registration.api)
        if mismatch is not None:
            problems.append(f"the workload {point.name} ({point.value}) {mismatch}: it is left out; install a release "
                            "of either that agrees")
            continue
        found.setdefault(point.name, registration)  # a name installed twice (an editable copy): the first found
    return found, tuple(problems)


def registry() -> dict[str, Registration]:
    """Every installed workload that loads, by its registered name."""
    return _installed()[0]


def registry_problems() -> tuple[str, ...]:
    """A line for each installed workload that does not load (the command line warns of each)."""
    return _installed()[1]


def registered(results: Path) -> Registration:
    """The registration of the workload that wrote the results file at `results`, or, where none has claimed it yet,
    the one that reads such a file (and says what it lacks). A file that is not there, or empty, is one line naming
    every installed workload's command, since no one workload's is the user's."""
    workloads = registry()
    if not results.is_file() or results.stat().st_size == 0:
        commands = ", ".join(f"`ov-tuner {name} ... --out {results}`" for name, r in workloads.items() if r.commands)
        state = "holds no results yet" if results.is_file() else "does not exist"
        raise BadInputError(f"results file {results} {state}; write it first with a workload's command: {commands}")
    with Connection(results, create=False) as store:
        writer = store.writer()
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
