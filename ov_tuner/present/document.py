"""One document for every output: sections of blocks, built once from the analysis by each workload's rendering
(the sweep's in ov_tuner.workloads.sweep.present.sections) and written by three small renderers, for the terminal
(rich), HTML and Markdown. The terminal's answer and the report's first section are the same blocks."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path


class Tone(str, Enum):
    """How a renderer may colour a block: plain, the answer, a warning, a problem."""

    PLAIN = "plain"
    GOOD = "good"
    WARN = "warn"
    BAD = "bad"


@dataclass(frozen=True)
class Paragraph:
    text: str
    tone: Tone = Tone.PLAIN


@dataclass(frozen=True)
class Facts:
    """Labelled lines, read down the labels: the answer block ('deploy', 'gain', 'why', ...)."""

    rows: tuple[tuple[str, str], ...]
    tone: Tone = Tone.GOOD


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]
    tone: Tone = Tone.PLAIN


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    title: str = ""
    numeric: frozenset[int] = frozenset()  # columns of numbers: right-aligned


@dataclass(frozen=True)
class Code:
    text: str
    language: str = ""


@dataclass(frozen=True)
class Image:
    path: Path
    alt: str


Block = Paragraph | Facts | Bullets | Table | Code | Image


@dataclass(frozen=True)
class Section:
    title: str
    blocks: tuple[Block, ...] = field(default_factory=tuple)


def table(header: tuple[str, ...] | list[str], rows: list[list[str]] | list[tuple[str, ...]], title: str = "",
          numeric: tuple[str, ...] = ()) -> Table:
    """A table whose `numeric` columns (by header) are right-aligned."""
    head = tuple(header)
    return Table(head, tuple(tuple(r) for r in rows), title, frozenset(head.index(n) for n in numeric))
