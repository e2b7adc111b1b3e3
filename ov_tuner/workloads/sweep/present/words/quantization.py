"""Words for how the INT8 IR was made, and for what its accuracy figures rest on."""

from __future__ import annotations

from ov_tuner.schema import Quantization

SPEED_ONLY = ("int8 was calibrated on generated inputs: its speed figure holds, its accuracy figure says little about "
              "real data (give --images for one)")


def inputs_text(record: Quantization, count: int) -> str:
    """'13 images' or '300 generated inputs'."""
    return f"{count} {'images' if record.images else 'generated inputs'}"


def quantization_lines(record: Quantization) -> list[str]:
    """One line on how the INT8 IR came to be, and the generated-data caveat where it applies."""
    if record.given:
        return [f"int8: {record.ir} is already quantized ({record.quantized_ops} quantizing operations): swept as "
                "given, never quantized twice"]
    control = (f", with accuracy control (agreement with FP32 on the held-apart inputs may drop at most "
               f"{record.options.max_drop:g} points)" if record.options.max_drop is not None else "")
    kind = ", transformer model type (it has attention)" if record.transformer else ""
    how = (f"calibrated on {inputs_text(record, record.calibration)}, {record.held_apart} others held apart for "
           f"accuracy{control}; {record.quantized_ops} quantizing operations, {record.options.preset.value} preset"
           f"{kind}")
    if record.cached:
        head = f"int8: reusing the INT8 IR NNCF {record.nncf_version} made earlier ({record.ir})"
    else:
        head = f"int8: NNCF {record.nncf_version} quantized the model in {record.seconds:.1f} s"
    return [f"{head}: {how}"] + ([SPEED_ONLY] if record.speed_only else [])


def caveat_for(record: Quantization | None) -> str:
    """What an int8 accuracy figure must be read with: '' or a short note."""
    return " (calibrated on generated inputs: a speed figure, not an accuracy figure)" if (
        record is not None and record.speed_only) else ""
