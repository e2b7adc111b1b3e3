"""One precision against another per device and batch: cell by cell as the search measured them, and best
against best head to head where a confirmation round measured both."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ov_tuner.analyse.confirmed import paired_cells, precision_ratios
from ov_tuner.analyse.heatmaps import Heatmap, Metric, heatmap_groups, heatmap_of, ratio_grid
from ov_tuner.analyse.points import explicit_points, fastest
from ov_tuner.schema import Confirmation, Mode, PointResult, Precision
from ov_tuner.stats.headtohead import HeadToHead, Ratio


@dataclass(frozen=True)
class PrecisionComparison:
    """FPS and p90 latency of one precision over another, per streams x nireq cell, for a device and batch.

    The cells compare points measured one after another in the search; `confirmed` is the best-to-best ratio
    measured head to head in the confirmation round, and `paired` its cells that were measured head to head in
    both precisions, each with its ratio.
    """

    device: str
    batch: int
    numerator: Precision
    denominator: Precision
    fps_ratio: Heatmap
    latency_ratio: Heatmap
    best_fps_ratio: float
    best: tuple[PointResult, PointResult]  # each precision's best explicit point, as the search measured them
    ran: tuple[tuple[Precision, str], ...]  # a precision that ran another precision than its name, and what ran
    confirmed: Ratio | None = None
    paired: dict[tuple[int, int], Ratio] = field(default_factory=dict)


def ran_in(points: list[PointResult], device: str, precision: Precision, batch: int) -> set[str]:
    """What ran (CompileInfo.ran) for every compile of a (device, precision, batch) that asked for the precision:
    OpenVINO default asks for none (it is filed under fp32, and runs bf16 on a bf16 CPU), so it speaks for itself."""
    return {p.compile.ran for p in _asking(points)
            if p.compile is not None and p.config.heatmap_key == (device, precision, batch)}


def ran_by_scope(points: list[PointResult]) -> dict[tuple[str, Precision, int], str]:
    """What ran for each (device, precision, batch) asked for, in CompileInfo.ran's words."""
    keys = {(p.config.device, p.config.precision, p.config.batch) for p in _asking(points)}
    return {k: ", ".join(sorted(ran_in(points, *k))) for k in keys}


def _asking(points: list[PointResult]) -> list[PointResult]:
    """The compiled points that asked for their precision (every one but OpenVINO default)."""
    return [p for p in points if p.compile is not None and p.config.mode is not Mode.DEFAULT]


def compare_precisions(points: list[PointResult], numerator: Precision = Precision.FP16,
                       denominator: Precision = Precision.FP32,
                       confirmations: Sequence[Confirmation] = ()) -> list[PrecisionComparison]:
    """For each (device, batch) measured in both precisions: the cell-by-cell ratios, and what ran wherever the
    device ran another precision than the one named (then the ratio compares what ran, not what was asked). Where a
    confirmation round measured both precisions' best head to head, its ratio, with its interval, is the answer.
    """
    result = []
    keys = {(d, b) for d, pr, b in heatmap_groups(points) if pr is numerator}
    keys &= {(d, b) for d, pr, b in heatmap_groups(points) if pr is denominator}
    head = HeadToHead.of(confirmations[-1]) if confirmations else None
    for device, batch in sorted(keys):
        grids = {}
        for metric in (Metric.FPS, Metric.LATENCY_P90):
            top = heatmap_of(points, device, numerator, batch, metric)
            bottom = heatmap_of(points, device, denominator, batch, metric)
            grids[metric] = ratio_grid(top, bottom)
        explicit = explicit_points(points)
        best_top = fastest(p for p in explicit if p.config.heatmap_key == (device, numerator, batch))
        best_bottom = fastest(p for p in explicit if p.config.heatmap_key == (device, denominator, batch))
        assert best_top is not None and best_bottom is not None
        ratio = best_top.fps / best_bottom.fps
        ran = tuple((precision, ", ".join(sorted(done))) for precision in (numerator, denominator)
                    if (done := ran_in(points, device, precision, batch)) != {precision.hint})
        confirmed = next((r.ratio for r in precision_ratios(head)
                          if (r.numerator.contender.config.scope, r.batch, r.numerator.contender.config.precision,
                              r.denominator.contender.config.precision) == (device, batch, numerator, denominator)),
                         None) if head else None
        paired = paired_cells(head, device, batch, numerator, denominator) if head else {}
        result.append(PrecisionComparison(device=device, batch=batch, numerator=numerator, denominator=denominator,
                                          fps_ratio=grids[Metric.FPS], latency_ratio=grids[Metric.LATENCY_P90],
                                          best_fps_ratio=ratio, best=(best_top, best_bottom), ran=ran,
                                          confirmed=confirmed, paired=paired))
    return result


# The precision pairs compared (numerator over denominator): each lower precision over fp32, and int8 over each
# float precision, since INT8 must beat the fastest float precision, not only fp32, to be worth its accuracy.
PRECISION_PAIRS = ((Precision.FP16, Precision.FP32), (Precision.BF16, Precision.FP32), (Precision.INT8, Precision.FP32),
                   (Precision.INT8, Precision.FP16), (Precision.INT8, Precision.BF16))


def all_precision_comparisons(points: list[PointResult], confirmations: Sequence[Confirmation] = (),
                              ) -> list[PrecisionComparison]:
    """Every pair of PRECISION_PAIRS measured at a device and batch."""
    return [c for numerator, denominator in PRECISION_PAIRS
            for c in compare_precisions(points, numerator, denominator, confirmations)]


@dataclass(frozen=True)
class PrecisionSpeed:
    """A precision's best FPS against another's best (`against`, fp32 unless said) at a device and batch: head to
    head where a round measured both (`confirmed`), else as the search measured them one after the other
    (`apart`)."""

    apart: float
    confirmed: Ratio | None
    against: Precision = Precision.FP32


def precision_speeds(points: list[PointResult], confirmations: Sequence[Confirmation] = (),
                     ) -> dict[tuple[str, Precision, int], PrecisionSpeed]:
    """Per (device, precision, batch) of fp16, bf16 and int8, its speed against fp32's."""
    return {(c.device, c.numerator, c.batch): PrecisionSpeed(c.best_fps_ratio, c.confirmed)
            for c in all_precision_comparisons(points, confirmations) if c.denominator is Precision.FP32}


def int8_against_fastest_float(points: list[PointResult], confirmations: Sequence[Confirmation] = (),
                               ) -> dict[tuple[str, int], PrecisionSpeed]:
    """Per (device, batch): int8's speed against the fastest float precision there where that is not fp32 (bf16 on
    an AMX CPU, f16 on a GPU): the precision int8 has to beat."""
    fastest: dict[tuple[str, int], tuple[float, PrecisionSpeed | None]] = {}  # None: fp32 is the fastest
    for c in all_precision_comparisons(points, confirmations):
        key, float_fps = (c.device, c.batch), c.best[1].fps
        if c.numerator is Precision.INT8 and (key not in fastest or float_fps > fastest[key][0]):
            speed = (None if c.denominator is Precision.FP32
                     else PrecisionSpeed(c.best_fps_ratio, c.confirmed, c.denominator))
            fastest[key] = (float_fps, speed)
    return {key: speed for key, (_, speed) in fastest.items() if speed is not None}
