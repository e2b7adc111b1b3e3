"""`ov-tuner quantize`: the INT8 IR a user deploys, made by the same function (and cache) as a sweep's int8."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated

import typer

from ov_tuner.commandline.app import app, err, one_line_errors, out
from ov_tuner.commandline.flags import parse_layouts, parse_shapes
from ov_tuner.errors import BadInputError, Given
from ov_tuner.schema import Int8Options, Preset
from ov_tuner.store.destinations import output_file
from ov_tuner.workloads.sweep.commands.options import Int8MaxDrop, ModelArgument, ShapeOption
from ov_tuner.workloads.sweep.present.words.quantization import quantization_lines


@app.command()
@one_line_errors
def quantize(
    model: ModelArgument,
    output: Annotated[Path, typer.Option("-o", "--out", help="The INT8 IR to write (.xml; its .bin beside it).")],
    images: Annotated[Path | None, typer.Option(help="Folder of .png/.jpg/.bmp images: every other one calibrates, "
                                                "the rest are held apart (for --int8-max-drop). Without it, "
                                                "generated inputs: a speed figure, not an accuracy one.")] = None,
    preset: Annotated[Preset, typer.Option(help="NNCF preset: performance (symmetric) or mixed (asymmetric "
                                           "activations).")] = Preset.PERFORMANCE,
    subset_size: Annotated[int | None, typer.Option(min=1, help="Most calibration inputs NNCF takes [default: 300 "
                                                    "images, or 64 generated inputs].")] = None,
    int8_max_drop: Int8MaxDrop = None,
    shape: ShapeOption = None,
    layout: Annotated[str | None, typer.Option(help="Input layouts where the model has none: NCHW, or "
                                               "name[NHWC].")] = None,
) -> None:
    """Quantize a model to INT8 with NNCF (post-training, or accuracy-aware with --int8-max-drop) and write the IR."""
    from ov_tuner.devices.modelfile import model_files, open_model_source
    from ov_tuner.devices.runtime import Runtime
    from ov_tuner.model.inputs import load_images
    from ov_tuner.quantize.make import quantize_model

    if output.suffix != ".xml":
        raise BadInputError(f"-o: {output} is not an .xml path; give the IR to write, e.g. -o model_int8.xml")
    for written in (output, output.with_suffix(".bin")):
        output_file(written, Given("-o"), model_files(model))
    source = open_model_source(model)
    made = quantize_model(Runtime(), source, Int8Options(preset, subset_size, int8_max_drop),
                          images=load_images(images) if images else None, images_dir=images,
                          shapes=parse_shapes(shape), layouts=parse_layouts(layout),
                          starting=lambda ir, on_images: err.print("quantizing with NNCF ...", highlight=False))
    if made.record.given:
        raise BadInputError(f"{model} is already quantized ({made.record.quantized_ops} quantizing operations): it is "
                            "its own INT8 IR; sweep or deploy it as given (ov-tuner never quantizes twice)")
    for suffix in (".bin", ".xml"):  # the .xml last: an interrupted copy never leaves an IR without its weights
        shutil.copyfile(made.path.with_suffix(suffix), output.with_suffix(suffix))
    out.print(f"wrote {output}", *quantization_lines(made.record), sep="\n", highlight=False, soft_wrap=True)
