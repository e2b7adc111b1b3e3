"""Two or more results files side by side: two hosts, two OpenVINO versions, before and after a model change. Pure.

Configurations are matched by device, precision, batch, streams, requests, mode, input mode and --set properties.
Per matched configuration: its FPS and p90 latency in each file against the first file's; per file its best,
and whether each file's best is still the best in the others (and at what share of their best it runs there).
The environments' differences are listed first: they are what the ratios measure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

from ov_tuner.analyse.points import explicit_points, fastest
from ov_tuner.errors import BadInputError, Input
from ov_tuner.schema import PointConfig, PointResult
from ov_tuner.store.results import StoredResults

# Environment fields listed when they differ between the files compared.
COMPARED_FIELDS = ("host", "cpu_model", "cores", "ov_version", "ov_tuner_version", "python", "model_name",
                   "model_sha256")


def differing_fields(fields: Sequence[Mapping[str, object]], names: Sequence[str] = COMPARED_FIELDS,
                     ) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Of `names`, the fields whose values differ between the files (each file's fields, as a mapping), with each
    file's value as text ('-' where a file has none): what every workload's comparison lists first."""
    return tuple((name, tuple(str(f.get(name, "-")) for f in fields)) for name in names
                 if len({str(f.get(name, "-")) for f in fields}) > 1)


@dataclass(frozen=True)
class Matched:
    """One configuration measured in every file: its points, in the files' order."""

    config: PointConfig
    points: tuple[PointResult, ...]

    def fps_ratios(self) -> tuple[float, ...]:
        """Each file's FPS over the first file's."""
        return tuple(p.fps / self.points[0].fps for p in self.points)

    def p90_ratios(self) -> tuple[float, ...]:
        return tuple(p.latency_ms(90) / self.points[0].latency_ms(90) for p in self.points)


@dataclass(frozen=True)
class BestElsewhere:
    """One file's best configuration, and how it runs in another file: its FPS there over that file's best."""

    file: int
    best: PointResult
    other: int
    there: PointResult | None
    other_best: PointResult

    @property
    def still_best(self) -> bool:
        return self.there is not None and self.there.config == self.other_best.config


@dataclass(frozen=True)
class Comparison:
    files: tuple[StoredResults, ...]
    differences: tuple[tuple[str, tuple[str, ...]], ...]  # an environment field that differs, and its values
    matched: tuple[Matched, ...]
    only_in: tuple[tuple[int, PointConfig], ...]  # (file index, configuration) measured in that file alone
    bests: tuple[BestElsewhere, ...]


def compare(files: list[StoredResults], models_differ: bool = False) -> Comparison:
    """Match the files' configurations; refuse files of different models unless `models_differ`."""
    if len(files) < 2:
        raise BadInputError("compare: give two or more results files")
    models = {f.environment.model_sha256 for f in files}
    if len(models) > 1 and not models_differ:
        names = ", ".join(f"{f.path} ({f.environment.model_name})" for f in files)
        raise BadInputError(f"compare: the files were measured with different models ({names}); add "
                            f"{Input.MODELS_DIFFER} to compare them anyway")
    differences = differing_fields([asdict(f.environment) for f in files])
    by_file = [{p.config: p for p in explicit_points(f.points)} for f in files]
    common = set(by_file[0]).intersection(*by_file[1:])
    matched = tuple(Matched(c, tuple(points[c] for points in by_file)) for c in sorted(common))
    only_in = tuple((i, c) for i, points in enumerate(by_file) for c in sorted(set(points) - common))
    bests = []
    for i, points in enumerate(by_file):
        best = fastest(points.values())
        for j, other in enumerate(by_file):
            other_best = fastest(other.values())
            if i != j and best is not None and other_best is not None:
                bests.append(BestElsewhere(i, best, j, other.get(best.config), other_best))
    return Comparison(tuple(files), differences, matched, only_in, tuple(bests))
