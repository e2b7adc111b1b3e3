"""Words for what a precision costs: its outputs against the FP32 reference beside its speed, and what a limit on
accuracy loss left out."""

from __future__ import annotations

from collections.abc import Mapping

from ov_tuner.analyse.accuracy import Breach
from ov_tuner.analyse.precisions import PrecisionSpeed
from ov_tuner.present.words.numbers import cosine_text, factor
from ov_tuner.schema import Accuracy, OutputAccuracy, Precision


def _closeness(cosine: float | None, top1: float | None, max_abs: float | None) -> list[str]:
    """'cosine 0.99931', 'top-1 agreement 98.4%', 'max abs error 0.0012': those that were measured."""
    parts = [f"cosine {cosine_text(cosine)}"] if cosine is not None else []
    if top1 is not None:
        parts.append(f"top-1 agreement {top1:.1%}")
    if max_abs is not None:
        parts.append(f"max abs error {max_abs:.3g}")
    return parts


def output_summary(o: OutputAccuracy) -> str:
    """'cosine 0.99931, top-1 agreement 98.4%, max abs error 0.0012', or 'equal 100.0%'."""
    if o.exact_kind:
        return f"equal {o.equal_share:.1%}"
    return ", ".join(_closeness(o.cosine, o.top1, o.max_abs))


def accuracy_summary(a: Accuracy) -> str:
    """'cosine 0.99931, top-1 agreement 98.4% on 32 inputs' (the least over the outputs)."""
    if a.error:
        return f"not compared: {a.error}"
    parts = _closeness(a.cosine, a.top1, a.max_abs)
    if a.integer_equal is not None:
        parts.append(f"integer outputs equal {a.integer_equal:.1%}")
    return f"{', '.join(parts) or 'no outputs'} on {a.inputs} inputs"


def speed_text(speed: PrecisionSpeed | None) -> str:
    """'1.95x (95%: 1.90..2.00x) FPS of fp32, head to head', or '1.18x FPS of fp32, measured apart'."""
    if speed is None:
        return "speed not compared"
    if speed.confirmed is not None:
        return f"{factor(speed.confirmed)} FPS of fp32, head to head"
    return f"{speed.apart:.2f}x FPS of fp32, measured apart"


def precision_cost_lines(accuracies: list[Accuracy], speeds: Mapping[tuple[str, Precision, int], PrecisionSpeed],
                         ran: Mapping[tuple[str, Precision, int], str]) -> list[str]:
    """One line per device, precision and batch: what ran, its speed against fp32 beside what its outputs lose,
    e.g. 'CPU bf16 batch 1 (ran bf16): 1.95x (95%: 1.90..2.00x) FPS of fp32, head to head; outputs: cosine
    0.999312, top-1 agreement 98.4% on 32 inputs'."""
    lines = []
    for a in accuracies:
        key = (a.device, a.precision, a.batch)
        head = f"{a.device} {a.precision.value} batch {a.batch}" + (f" (ran {ran[key]})" if key in ran else "")
        if a.precision is Precision.FP32:
            pace = "the reference precision" if a.device == "CPU" else speed_text(speeds.get(key))
        else:
            pace = speed_text(speeds.get(key))
        lines.append(f"{head}: {pace}; outputs: {accuracy_summary(a)}")
    return lines


def breach_text(b: Breach) -> str:
    """'CPU fp16 batch 1 excluded: cosine 0.99812 < 0.999 on 32 inputs'."""
    a = b.accuracy
    if b.figure == "cosine":
        why = f"cosine {cosine_text(b.value)} < {cosine_text(b.least)}"
    else:
        why = f"top-1 agreement {b.value:.1%} < {b.least:.1%}"
    return f"{a.device} {a.precision.value} batch {a.batch} excluded: {why} on {a.inputs} inputs"
