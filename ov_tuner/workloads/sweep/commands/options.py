"""The options the sweep's commands and its parts' share: the model, devices and precisions, counts, shapes, INT8's
accuracy control and the results file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

ModelArgument = Annotated[Path, typer.Argument(help="OpenVINO IR (.xml), ONNX, or another model OpenVINO converts.")]
Devices = Annotated[list[str] | None, typer.Option(help="A device as OpenVINO names it: CPU, GPU, AUTO:GPU,CPU (one "
                                                  "device over GPU and CPU), MULTI:GPU,CPU, HETERO:GPU,CPU, "
                                                  "BATCH:GPU(4); repeat it for several, or list plain ones: CPU,GPU. "
                                                  "\\[default: CPU]")]
Precisions = Annotated[str, typer.Option(help="auto: fp32 and each precision the device runs as math of its own "
                                         "(`ov-tuner devices` says which); or fp32, fp16, bf16 and/or int8 (quantized "
                                         "with NNCF), comma-separated; auto,int8 adds int8 to auto.")]
OnePrecision = Annotated[str, typer.Option(help="auto: the precision the device runs when not told, where auto "
                                           "sweeps it (bf16 on many CPUs, fp16 on a GPU), else fp32; or one of fp32, "
                                           "fp16, bf16, int8 (quantized with NNCF on generated inputs, as a sweep "
                                           "does).")]
Count = Annotated[int, typer.Option(min=1)]
ShapeOption = Annotated[str | None, typer.Option(help="Input shapes for dynamic models: [1,3,224,224] or name[...].")]
Int8MaxDrop = Annotated[float | None, typer.Option(min=0.0, max=100.0, help="With int8: NNCF's accuracy control "
                                                  "keeps layers in float until top-1 agreement with FP32 (cosine "
                                                  "where no output holds class scores) on held-apart inputs drops "
                                                  "at most this many percentage points.")]
ResultsOut = Annotated[Path, typer.Option("--out", help="SQLite results file; stored with a sweep's results.")]
