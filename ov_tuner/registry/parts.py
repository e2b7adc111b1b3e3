"""What a workload registers: the parts every command over a results file asks of it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ov_tuner import API_VERSION
from ov_tuner.store.tables import Writer

if TYPE_CHECKING:  # the command line imports this for every command: rich, the analysis and matplotlib wait
    import typer
    from rich.console import Console

    from ov_tuner.analyse.accuracy import AccuracyLimit
    from ov_tuner.present.deploy import Forms
    from ov_tuner.present.report import ReportFiles
    from ov_tuner.schema import Precision


@dataclass(frozen=True)
class Asked:
    """What `recommend`'s flags narrow an answer to: a latency budget at a percentile, one device, one precision, an
    accuracy limit (None: the default). The sweep's answer reads them; the others are answered as they were tuned."""

    max_latency: float | None = None
    percentile: int = 90
    device: str | None = None
    precision: Precision | None = None
    limit: AccuracyLimit | None = None


# What `recommend` may narrow an answer by: Asked's fields. A workload names those its answer reads (Registration.asks).
ASKABLE = tuple(field.name for field in fields(Asked))


@dataclass(frozen=True)
class Registration:
    """One workload, as it registers through the `ov_tuner.workloads` entry points (ov_tuner.registry): `writer`, its
    name (the entry point's) and whose results file it writes, kept in every file it writes; `api`, the plug-in API
    version it was written against (API_VERSION; ov_tuner.registry loads it only where that agrees); each other part
    a function of the file (or of the answer read from it):

    - `answer`: its answer record (what every output words), under what `recommend` asked;
    - `show`: every stored trial and the answer, on a console; `words`: the answer alone, as `recommend` prints it;
    - `report`: report.html, report.md and their figures written into a folder (several files: one page comparing
      them, where the kind has one); `figures`: its figures written into a folder, in a format, the paths written;
    - `compare`: several files side by side on a console (None: the kind has no comparison, said in one line);
    - `export`: its points as CSV or JSON text (None: only figures, through `recommend --format json`);
    - `forms`: the forms `recommend --format` writes of its answer (present/deploy.Forms), read when asked for: they
      import the analysis; `formats`, the names of those it adds to ov-tuner's own (DeployFormat's), which
      `recommend --format` offers without reading the forms (API 1.1);
    - `asks`: which of `recommend`'s narrowing flags its answer reads, by Asked's fields (ASKABLE); one it does not
      read, given, is refused in one line rather than left unread (API 1.1);
    - `commands`: adds its commands to the command line's one app (None: it has none);
    - `reads_unclaimed`: its reader is the one for a file no workload claimed yet (it says what the file lacks);
    - `fleet`: its command runs as it is on every host of a Ray cluster, `ov-tuner fleet NAME ARGS` (it writes its
      results file where `--out` says, and reads its input files at the paths given on every host).
    """

    writer: Writer
    api: str
    answer: Callable[[Path, Asked], Any]
    show: Callable[[Console, Path, bool], None]
    words: Callable[[Console, Any], None]
    report: Callable[[Sequence[Path], Path, bool], ReportFiles]
    figures: Callable[[Path, Path, str, bool], list[Path]]
    compare: Callable[[Console, Sequence[Path], bool, Path | None, str], None] | None = None
    export: Callable[[Path, bool, bool], tuple[str, int]] | None = None
    forms: Callable[[], Forms] = lambda: {}
    formats: tuple[str, ...] = ()
    asks: tuple[str, ...] = ()
    commands: Callable[[typer.Typer], None] | None = None
    reads_unclaimed: bool = False
    fleet: bool = False

    @property
    def name(self) -> str:
        return self.writer.name


def api_mismatch(wanted: str) -> str | None:
    """Why a plug-in written against API `wanted` cannot load here (None: it can): the major versions agree and its
    minor is not above this one's."""
    ours = _version(API_VERSION)
    theirs = _version(wanted)
    if theirs is None:
        return f"declares the plug-in API version {wanted!r}, not MAJOR.MINOR such as {API_VERSION}"
    assert ours is not None
    if theirs[0] != ours[0] or theirs[1] > ours[1]:
        return f"needs the plug-in API {wanted}; this ov-tuner has {API_VERSION}"
    return None


def _version(text: str) -> tuple[int, int] | None:
    parts = str(text).split(".")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1])
