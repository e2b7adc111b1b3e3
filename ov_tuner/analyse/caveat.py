"""The one caveat about an answer that matters most, first of: not confirmed head to head; a baseline beat every
explicit configuration; the deployed precision's outputs drift from FP32's; the round left contenders open; a ratio
the answer states (a gain over a baseline, a precision over another) has an interval too wide to read as one figure;
the host was noisy. Pure: the words are ov_tuner.present's."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from statistics import median

from ov_tuner.analyse.accuracy import accuracy_of
from ov_tuner.analyse.confirmed import PrecisionRatio, Rule, Standing
from ov_tuner.analyse.diagnostics import NOISY_FPS_CV
from ov_tuner.analyse.recommend import Recommendation
from ov_tuner.schema import Accuracy, PointResult
from ov_tuner.stats.headtohead import Ratio

# Outputs that agree with FP32's less than this (least cosine similarity, top-1 agreement) are worth the caveat.
ACCURACY_COSINE, ACCURACY_TOP1 = 0.999, 0.99
# A ratio whose interval's high end is more than this many times its low end is worth the caveat: "2.25x (95%:
# 1.26..4.03x)" says faster, not how much faster.
WIDE_SPAN = 1.5


class CaveatKind(str, Enum):
    NOT_CONFIRMED = "not_confirmed"
    BASELINE_WON = "baseline_won"
    ACCURACY = "accuracy"
    OPEN = "open"
    WIDE = "wide"
    NOISY = "noisy"


@dataclass(frozen=True)
class Caveat:
    kind: CaveatKind
    accuracy: Accuracy | None = None  # ACCURACY: the deployed precision's outputs against FP32
    open_count: int = 0  # OPEN: contenders the round could not tell apart from the leader
    median_cv: float = 0.0  # NOISY: the median window-to-window CV of the points measured
    wide: PrecisionRatio | Standing | None = None  # WIDE: the ratio stated with the widest interval


def caveat(rec: Recommendation, accuracies: list[Accuracy], points: list[PointResult]) -> Caveat | None:
    """The caveat that matters most for `rec`, or None."""
    if rec.answer is None:
        return Caveat(CaveatKind.NOT_CONFIRMED)
    if rec.answer.rule is Rule.BASELINE:
        return Caveat(CaveatKind.BASELINE_WON)
    c = rec.winner.config
    mine = accuracy_of(accuracies, c.device, c.precision, c.batch)
    if mine is not None and (mine.error or (mine.cosine is not None and mine.cosine < ACCURACY_COSINE)
                             or (mine.top1 is not None and mine.top1 < ACCURACY_TOP1)):
        return Caveat(CaveatKind.ACCURACY, accuracy=mine)
    if rec.answer.unresolved:
        return Caveat(CaveatKind.OPEN, open_count=len(rec.answer.unresolved))
    stated: list[PrecisionRatio | Standing] = [*rec.answer.gains, *rec.answer.precision_ratios]
    widest = max(stated, key=lambda r: _span(r.ratio), default=None)
    if widest is not None and _span(widest.ratio) > WIDE_SPAN:
        return Caveat(CaveatKind.WIDE, wide=widest)
    cvs = [p.measurement.fps_cv for p in points if p.measurement is not None and p.measurement.fps_cv is not None]
    if cvs and median(cvs) > NOISY_FPS_CV:
        return Caveat(CaveatKind.NOISY, median_cv=median(cvs))
    return None


def _span(ratio: Ratio) -> float:
    """How many times its interval's low end the high end is (1 where there is no interval)."""
    return ratio.high / ratio.low if ratio.low > 0 and math.isfinite(ratio.high) else 1.0
