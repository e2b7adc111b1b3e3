"""Words for what a precision costs: its outputs against the FP32 reference beside its speed, and what a limit on
accuracy loss left out."""

from __future__ import annotations

from collections.abc import Mapping

from ov_tuner.analyse.accuracy import MASK_AT, TOP_BOXES, Breach
from ov_tuner.analyse.precisions import PrecisionSpeed
from ov_tuner.present.words.numbers import cosine_text, factor
from ov_tuner.schema import Accuracy, OutputAccuracy, Precision, Quantization
from ov_tuner.workloads.sweep.present.words.quantization import caveat_for


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
    boxes = [f"top-{TOP_BOXES} box agreement {o.top_boxes:.1%}"] if o.top_boxes is not None else []
    mask = [f"mask IoU {o.mask_iou:.1%}"] if o.mask_iou is not None else []
    return ", ".join(_closeness(o.cosine, o.top1, o.max_abs) + boxes + mask)


def accuracy_summary(a: Accuracy, quantization: Quantization | None = None) -> str:
    """'cosine 0.99931, top-1 agreement 98.4% on 32 inputs' (the least over the outputs); 'on 13 images' where int8
    was calibrated on images (the others), and for int8 calibrated on generated inputs, that caveat."""
    if a.error:
        return f"not compared: {a.error}"
    parts = _closeness(a.cosine, a.top1, a.max_abs)
    if a.top_boxes is not None:
        parts.append(f"top-{TOP_BOXES} box agreement {a.top_boxes:.1%}")
    if a.mask_iou is not None:
        parts.append(f"mask IoU {a.mask_iou:.1%}")
    if a.integer_equal is not None:
        parts.append(f"integer outputs equal {a.integer_equal:.1%}")
    return f"{', '.join(parts) or 'no outputs'} {_on(a, quantization)}"


def _on(a: Accuracy, quantization: Quantization | None) -> str:
    """'on 32 inputs', 'on 13 held-apart images', and for int8 calibrated on generated inputs, that caveat."""
    on_images = quantization is not None and quantization.images and not quantization.given
    held = "held-apart images" if on_images else "inputs"
    caveat = caveat_for(quantization) if a.precision is Precision.INT8 else ""
    return f"on {a.inputs} {held}{caveat}"


def int8_trade_text(speed: PrecisionSpeed | None, fastest_float: PrecisionSpeed | None, a: Accuracy | None,
                    quantization: Quantization | None) -> str:
    """What INT8 buys and costs in one line: '1.52x (95%: 1.40..1.65x) FPS of fp32, head to head; top-1 agreement
    98.4% on 20 held-apart images'."""
    pace = "; ".join(speed_text(s) for s in (speed, fastest_float) if s is not None) or speed_text(None)
    if a is None or a.error:
        return f"{pace}; outputs not compared"
    if a.top1 is not None:
        figure = f"top-1 agreement {a.top1:.1%}"
    elif a.top_boxes is not None:
        figure = f"top-{TOP_BOXES} box agreement {a.top_boxes:.1%}"
    elif a.mask_iou is not None:
        figure = f"mask IoU {a.mask_iou:.1%} against FP32's (score map at {MASK_AT:g})"
    else:
        figure = f"cosine {cosine_text(a.cosine)}" if a.cosine is not None else "no float outputs"
    control = (f" (accuracy control: --int8-max-drop {quantization.options.max_drop:g})"
               if quantization is not None and quantization.options.max_drop is not None else "")
    return f"{pace}; {figure} {_on(a, quantization)}{control}"


def speed_text(speed: PrecisionSpeed | None) -> str:
    """'1.95x (95%: 1.90..2.00x) FPS of fp32, head to head', or '1.18x FPS of fp32, measured apart'."""
    if speed is None:
        return "speed not compared"
    if speed.confirmed is not None:
        return f"{factor(speed.confirmed)} FPS of {speed.against.value}, head to head"
    return f"{speed.apart:.2f}x FPS of {speed.against.value}, measured apart"


def precision_cost_lines(accuracies: list[Accuracy], speeds: Mapping[tuple[str, Precision, int], PrecisionSpeed],
                         ran: Mapping[tuple[str, Precision, int], str],
                         int8_vs_float: Mapping[tuple[str, int], PrecisionSpeed] | None = None,
                         quantization: Quantization | None = None) -> list[str]:
    """One line per device, precision and batch: what ran, its speed against fp32 (for int8 also against the
    fastest float precision where that is not fp32) beside what its outputs lose, e.g. 'CPU int8 batch 1 (ran u8
    math, i8 weights): 1.52x (95%: 1.40..1.65x) FPS of fp32, head to head; outputs: cosine 0.999312, top-1
    agreement 98.4% on 20 held-apart images'."""
    lines = []
    for a in accuracies:
        key = (a.device, a.precision, a.batch)
        head = f"{a.device} {a.precision.value} batch {a.batch}" + (f" (ran {ran[key]})" if key in ran else "")
        if a.precision is Precision.FP32:
            pace = "the reference precision" if a.device == "CPU" else speed_text(speeds.get(key))
        else:
            pace = speed_text(speeds.get(key))
        fastest_float = (int8_vs_float or {}).get((a.device, a.batch))
        if a.precision is Precision.INT8 and fastest_float is not None:
            pace += f"; {speed_text(fastest_float)} (the fastest float precision)"
        lines.append(f"{head}: {pace}; outputs: {accuracy_summary(a, quantization)}")
    return lines


def breach_text(b: Breach) -> str:
    """'CPU fp16 batch 1 excluded: cosine 0.99812 < 0.999 on 32 inputs'."""
    a = b.accuracy
    return f"{a.device} {a.precision.value} batch {a.batch} excluded: {breach_reason(b)}"


def breach_reason(b: Breach) -> str:
    """What of its outputs keeps a configuration from being deployed: 'cosine 0.926097 < 0.99 on 13 inputs'."""
    a = b.accuracy
    if b.figure == "generated":
        return ("its INT8 IR was calibrated on generated inputs, so its agreement with FP32 says nothing of real "
                "data")
    assert b.value is not None and b.least is not None
    if b.figure == "cosine":
        why = f"cosine {cosine_text(b.value)} < {b.least:g}"
    elif b.figure == "top1":
        why = f"top-1 agreement {b.value:.1%} < {b.least:.0%}"
    elif b.figure == "boxes":
        why = f"top-{TOP_BOXES} box agreement {b.value:.1%} < {b.least:.0%}"
    else:
        why = f"mask IoU {b.value:.1%} < {b.least:.0%}"
    return f"{why} {_on(a, None)}"
