"""What a precision costs in output quality: each output against the FP32 reference, as numbers. Pure numpy.

Per output: the largest and the mean absolute error, the largest relative error (where the reference is not
near zero: below NEAR_ZERO of the output's largest magnitude a relative error means nothing), the cosine
similarity of each input's output to the reference's (the least over the inputs), and, where the output holds
class scores, how often the top-1 class (and the reference's top-1 among the top 5) agree; where it holds a
detector's scores (boxes x classes, every value in [0, 1]), how many of the reference's TOP_BOXES highest-scoring
(box, class) pairs stay among the highest: a cosine over thousands of background boxes hides a lost detection.
Integer and boolean outputs compare exactly: the share of equal values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ov_tuner.errors import BadInputError, Input
from ov_tuner.schema import Accuracy, Mode, OutputAccuracy, PointConfig, PointResult, Precision, Quantization

if TYPE_CHECKING:  # a type alone: `show` and `recommend` read a results file without loading OpenVINO
    from ov_tuner.measure.accuracy import Reference

# A reference value below this fraction of the output's largest magnitude is "near zero": left out of the
# relative error, which would otherwise measure rounding noise divided by almost nothing.
NEAR_ZERO = 1e-3
# How many of a detector's highest-scoring (box, class) pairs the top-box agreement follows per input.
TOP_BOXES = 10
# A one-channel score map (a DBNet text map, a segmentation mask) is read as a mask at this probability.
MASK_AT = 0.5
# The least height and width of an output read as a score map rather than a vector.
MAP_SIDE = 8


def detector_scores(reference: np.ndarray) -> bool:
    """Shaped like a detector's scores over N inputs: [N, boxes, classes], more boxes than classes, every value a
    score in [0, 1] (not 4 wide: that is box corners)."""
    return (reference.ndim == 3 and reference.shape[1] > reference.shape[2] > 1 and reference.shape[2] != 4
            and bool(np.all((reference >= 0) & (reference <= 1))))


def score_map(reference: np.ndarray) -> bool:
    """Shaped like a one-channel score map over N inputs: [N, 1, H, W], at least MAP_SIDE high and wide, every value
    a probability in [0, 1] (a text detector's map, a binary segmentation)."""
    return (reference.ndim == 4 and reference.shape[1] == 1 and min(reference.shape[2:]) >= MAP_SIDE
            and bool(np.all((reference >= 0) & (reference <= 1))))


def mask_iou(reference: np.ndarray, actual: np.ndarray) -> float:
    """The mean over inputs of the intersection over union of the two masks at MASK_AT (1 where both are empty)."""
    ref = reference.reshape(len(reference), -1) >= MASK_AT
    act = actual.reshape(len(actual), -1) >= MASK_AT
    union = (ref | act).sum(axis=1)
    return float(np.mean(np.where(union > 0, (ref & act).sum(axis=1) / np.maximum(union, 1), 1.0)))


def top_box_agreement(reference: np.ndarray, actual: np.ndarray) -> float:
    """The mean share, over inputs, of the reference's TOP_BOXES highest (box, class) scores that are among the
    actual output's TOP_BOXES highest."""
    flat_ref, flat_act = reference.reshape(len(reference), -1), actual.reshape(len(actual), -1)
    k = min(TOP_BOXES, flat_ref.shape[1])
    top_ref = np.argpartition(-flat_ref, k - 1, axis=1)[:, :k]
    top_act = np.argpartition(-flat_act, k - 1, axis=1)[:, :k]
    return float(np.mean([len(np.intersect1d(r, a)) / k for r, a in zip(top_ref, top_act, strict=True)]))


def compare_output(name: str, reference: np.ndarray, actual: np.ndarray, class_scores: bool) -> OutputAccuracy:
    """One output over N inputs (axis 0 of both arrays) against the reference."""
    if reference.shape != actual.shape:
        raise ValueError(f"output {name}: shape {actual.shape} against the reference's {reference.shape}")
    equal = float(np.mean(reference == actual)) if reference.size else 1.0
    if not np.issubdtype(reference.dtype, np.floating):
        return OutputAccuracy(name=name, exact_kind=True, max_abs=0.0, mean_abs=0.0, max_rel=None, cosine=None,
                              top1=None, top5=None, equal_share=equal)
    ref, act = reference.astype(np.float64), actual.astype(np.float64)
    error = np.abs(act - ref)
    scale = float(np.abs(ref).max()) if ref.size else 0.0
    solid = np.abs(ref) > NEAR_ZERO * scale
    max_rel = float((error[solid] / np.abs(ref[solid])).max()) if solid.any() else None
    flat_ref, flat_act = ref.reshape(len(ref), -1), act.reshape(len(act), -1)
    norms = np.linalg.norm(flat_ref, axis=1) * np.linalg.norm(flat_act, axis=1)
    cosines = np.where(norms > 0, np.sum(flat_ref * flat_act, axis=1) / np.where(norms > 0, norms, 1), 1.0)
    cosines = np.where(np.all(flat_ref == flat_act, axis=1), 1.0, np.minimum(cosines, 1.0))  # exact where equal
    top1 = top5 = None
    mapped = score_map(ref)
    if class_scores and not mapped:  # a sigmoid over a map scores pixels, not classes
        rows_ref, rows_act = ref.reshape(-1, ref.shape[-1]), act.reshape(-1, act.shape[-1])
        best = rows_ref.argmax(axis=1)
        top1 = float(np.mean(best == rows_act.argmax(axis=1)))
        if ref.shape[-1] >= 5:
            five = np.argpartition(-rows_act, 4, axis=1)[:, :5]
            top5 = float(np.mean(np.any(five == best[:, None], axis=1)))
    boxes = top_box_agreement(ref, act) if detector_scores(ref) else None
    mask = mask_iou(ref, act) if mapped else None
    return OutputAccuracy(name=name, exact_kind=False, max_abs=float(error.max()) if error.size else 0.0,
                          mean_abs=float(error.mean()) if error.size else 0.0, max_rel=max_rel,
                          cosine=float(np.min(cosines)), top1=top1, top5=top5, equal_share=equal, top_boxes=boxes,
                          mask_iou=mask)


def compare_with_reference(config: PointConfig, ref: Reference, actual: dict[str, np.ndarray],
                           class_scores: Mapping[str, bool]) -> Accuracy:
    """One configuration's outputs on the fixed inputs against the FP32 reference's; a non-deterministic reference or
    a failed comparison is said in `error`, never raised: it must not stop the sweep."""
    def failed(why: str) -> Accuracy:
        return Accuracy(config.device, config.precision, config.batch, ref.inputs, (), why)

    if not ref.deterministic:
        return failed("the model's outputs differ between two runs of the same input on the FP32 reference, so "
                      "they cannot tell what a precision costs")
    try:
        compared = tuple(compare_output(name, ref.outputs[name], actual[name], class_scores.get(name, False))
                         for name in ref.outputs)
    except (ValueError, KeyError) as e:
        return failed(f"the comparison failed: {e}")
    return Accuracy(config.device, config.precision, config.batch, ref.inputs, compared)


# The figures a limit bounds, as --max-accuracy-loss names them, and the Accuracy property each reads.
LIMIT_FIGURES = {"cosine": "cosine", "top1": "top1", "boxes": "top_boxes", "mask": "mask_iou"}


@dataclass(frozen=True)
class AccuracyLimit:
    """The most output quality a deployment may give up: the least cosine similarity, top-1 agreement (class scores)
    and top-box agreement (detector scores). `proof_needed`: an INT8 IR calibrated on generated inputs is held back,
    since its figures were measured on noise and say nothing of real data (only `none` lifts that)."""

    min_cosine: float | None = None
    min_top1: float | None = None
    min_top_boxes: float | None = None
    min_mask_iou: float | None = None
    proof_needed: bool = True

    @classmethod
    def parse(cls, text: str) -> AccuracyLimit:
        """'none'; or 'cosine=0.01' (1 - cosine at most 0.01), 'top1=1%' (top-1 agreement at least 99%),
        'boxes=10%' (top-box agreement at least 90%), 'mask=10%' (score-map mask IoU at least 90%), any of them
        together."""
        if text.strip().lower() == "none":
            return NO_LIMIT
        limits: dict[str, float] = {}
        for part in (p.strip() for p in text.split(",") if p.strip()):
            name, _, value = part.partition("=")
            try:
                loss = float(value.strip().rstrip("%")) / (100 if value.strip().endswith("%") else 1)
            except ValueError:
                loss = -1.0
            if name.strip().lower() not in LIMIT_FIGURES or not 0 <= loss <= 1:
                raise BadInputError(f"{Input.ACCURACY_LOSS}: cannot read '{part}'; use none, or cosine=0.01 (1 - "
                                    "cosine similarity), top1=1% (top-1 disagreement), boxes=10% (top boxes lost) "
                                    "and/or mask=10% (score-map IoU lost)")
            limits[name.strip().lower()] = 1 - loss
        return cls(limits.get("cosine"), limits.get("top1"), limits.get("boxes"), limits.get("mask"))

    def breach(self, accuracy: Accuracy, quantization: Quantization | None = None) -> Breach | None:
        """What of `accuracy` loses more than the limit allows (or proves nothing, for an INT8 IR calibrated on
        generated inputs), or None."""
        if accuracy.error:
            return None
        if self.proof_needed and accuracy.precision is Precision.INT8 and quantization and quantization.speed_only:
            return Breach(accuracy, "generated", None, None)
        for o in accuracy.outputs:
            for figure, least in self._bounds(o):
                value = getattr(o, LIMIT_FIGURES[figure])
                if least is not None and value is not None and value < least:
                    return Breach(accuracy, figure, value, least)
        return None

    def _bounds(self, o: OutputAccuracy) -> tuple[tuple[str, float | None], ...]:
        """The figures bounded on one output: its mask IoU where it is a score map (whose cosine follows the noise of
        its background), else its cosine; its top-1 and top-box agreement where it has them."""
        closeness = ("mask", self.min_mask_iou) if o.mask_iou is not None else ("cosine", self.min_cosine)
        return closeness, ("top1", self.min_top1), ("boxes", self.min_top_boxes)


# By default an answer keeps every output close to FP32: cosine similarity at least 0.99 and, where the outputs
# hold class scores, the same top-1 class on at least 99% of inputs; detector scores keep 90% of the top boxes, and a
# score map 90% of its mask (IoU).
DEFAULT_LIMIT = AccuracyLimit(0.99, 0.99, 0.90, 0.90)
NO_LIMIT = AccuracyLimit(proof_needed=False)


@dataclass(frozen=True)
class Breach:
    """A device, precision and batch whose outputs lose more than a limit: which figure ("cosine", "top1", "boxes",
    "mask"; or "generated": an INT8 IR calibrated on generated inputs), its value and the least allowed."""

    accuracy: Accuracy
    figure: str
    value: float | None
    least: float | None


def accuracy_key(point: PointResult) -> tuple[str, Precision, int]:
    """The (device, precision, batch) whose outputs a point's outputs are: its own, but for OpenVINO default, which
    asks for no precision and runs the device's own (bf16 on a bf16 CPU): the precision it read back."""
    c, precision = point.config, point.config.precision
    if c.mode is Mode.DEFAULT and point.compile is not None:
        ran = point.compile.inference_precision
        precision = next((p for p in (Precision.FP32, Precision.BF16, Precision.FP16) if p.hint == ran), precision)
    return c.device, precision, c.batch


def accuracy_of(accuracies: list[Accuracy], device: str, precision: Precision, batch: int) -> Accuracy | None:
    """The stored comparison of one device, precision and batch, if there is one."""
    return next((a for a in accuracies if (a.device, a.precision, a.batch) == (device, precision, batch)), None)


def excluded(accuracies: list[Accuracy], limit: AccuracyLimit, quantization: Quantization | None = None,
             ) -> dict[tuple[str, Precision, int], Breach]:
    """The (device, precision, batch) combinations whose outputs lose more than `limit`, each with its breach."""
    found = {}
    for accuracy in accuracies:
        breach = limit.breach(accuracy, quantization)
        if breach is not None:
            found[(accuracy.device, accuracy.precision, accuracy.batch)] = breach
    return found
