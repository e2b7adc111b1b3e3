"""The figure files `plot` and the report wrote, by kind: what the documents link to, kept apart from plots.py so
that a command that draws nothing never imports matplotlib."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class WrittenFigures:
    heatmaps: list[Path] = field(default_factory=list)
    precision: list[Path] = field(default_factory=list)
    pareto: Path | None = None
    batch: Path | None = None
    profiles: list[Path] = field(default_factory=list)
    virtual: list[Path] = field(default_factory=list)
    capacity: Path | None = None
    soaks: list[Path] = field(default_factory=list)

    def all(self) -> list[Path]:
        return [*self.heatmaps, *self.precision,
                *[p for p in (self.pareto, self.batch, self.capacity) if p is not None], *self.soaks, *self.virtual,
                *self.profiles]
