"""Where output goes, checked before any work starts: a sweep must never measure for ten minutes and then
fail to write. Each check raises one OutputError line that names the path and what is wrong with it.

Three kinds of destination: a results file (SQLite also writes a journal beside it, so its folder must be
writable too), a single output file (a config, an export), and an output folder (figures, a report), which
is created when missing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ov_tuner.errors import Given, Input, OutputError

RESULTS = Given(Input.RESULTS)


def results_file(path: Path, given: Given = RESULTS, inputs: Iterable[Path] = ()) -> None:
    """A results file to create or add to: its folder exists and is writable, the path is not a folder, and it is
    none of the user's `inputs`. Each error names the path as `given`."""
    _file(path, given, f"a file path such as {path / 'results.db'}", inputs)


def output_file(path: Path, given: Given, inputs: Iterable[Path] = ()) -> None:
    """A single file to write: its folder exists and is writable, the path is a writable file or nothing, and it is
    none of the user's `inputs` (a model, a results file): no output ever replaces what the user gave."""
    _file(path, given, f"a file path such as {path / 'out.json'}", inputs)


def output_folder(path: Path, given: Given) -> Path:
    """A folder to write files into, created (with its parents) when missing; returned for convenience."""
    if path.exists() and not path.is_dir():
        raise OutputError(f"{given}: {path} is a file; give a folder (it is created when missing), e.g. "
                          f"{path.with_suffix('')}-out")
    if not path.exists():
        existing = next(p for p in path.absolute().parents if p.exists())
        if existing.is_dir() and not os.access(existing, os.W_OK | os.X_OK):
            raise OutputError(f"{given}: cannot create folder {path}: folder {existing} is read-only; make it "
                              "writable or pick another folder")
        try:
            path.mkdir(parents=True)
        except OSError as e:
            raise OutputError(f"{given}: cannot create folder {path}: {e.strerror}; pick another folder") from e
    if not os.access(path, os.W_OK | os.X_OK):
        raise OutputError(f"{given}: folder {path} is read-only; make it writable (chmod u+w {path}) or pick another")
    return path


def _file(path: Path, given: Given, example: str, inputs: Iterable[Path]) -> None:
    for source in inputs:
        if _same_file(path, source):
            raise OutputError(f"{given}: writing {path} would replace {source}, which you gave as input; pick another "
                              f"path, e.g. {path.with_name(f'{path.stem}_out{path.suffix}')}")
    if path.is_dir():
        raise OutputError(f"{given}: {path} is a folder; give {example}")
    folder = path.parent
    if not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "does not exist"
        raise OutputError(f"{given}: folder {folder} {what}; create it or pick another path")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{given}: folder {folder} is read-only, and {path.name} needs to be written there; "
                          "make it writable or pick another path")
    if path.exists() and not os.access(path, os.W_OK):
        raise OutputError(f"{given}: {path} is read-only; make it writable (chmod u+w {path}) or pick another path")


def _same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: the same file on disk (links included), or the same absolute path."""
    try:
        return a.exists() and b.exists() and a.samefile(b)
    except OSError:
        return a.absolute() == b.absolute()
