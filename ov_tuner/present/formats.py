"""The deployed configuration in the forms people paste: compile_model properties in Python, a -load_config file with
the benchmark_app line that loads it. Each reshapes the model to the input shapes the sweep compiled, which the answer
record carries (ov_tuner.analyse.inputs reads them): nothing here opens the model."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

from ov_tuner.analyse.inputs import InputShape
from ov_tuner.quantize.paths import int8_ir_path
from ov_tuner.schema import PointResult, Precision, Quantization

# The -load_config file the benchmark_app line names where the user named none (recommend --config-out FILE).
LOAD_CONFIG_FILE = "load_config.json"


@dataclass(frozen=True)
class DeploySnippets:
    """Copy-paste forms of one configuration, and the command that makes the model file they load where it is not
    the one the user gave."""

    properties: dict[str, str]
    python: str
    benchmark_app: str  # writes the -load_config file (a here-document), then runs benchmark_app_line
    benchmark_app_line: str  # benchmark_app -load_config config_file, with the measured requests, batch and shape
    load_config: str
    notes: tuple[str, ...]
    model: DeployModel
    config_file: str = LOAD_CONFIG_FILE
    inputs: tuple[InputShape, ...] | None = None  # None: the model file is not readable here


@dataclass(frozen=True)
class DeployModel:
    """The model file a deployment loads, and the command that makes it from the user's model where it differs."""

    path: str
    make: str | None = None


def deploy_model(point: PointResult, source: str, quantization: Quantization | None = None) -> DeployModel:
    """The model the user gave (`source`, the path the sweep was given), or the IR to make from it (deploy_file)."""
    if quantization is None:
        quantize: str | None = shlex.join(["ov-tuner", "quantize", source, "-o", str(int8_ir_path(Path(source)))])
    else:
        quantize = None if quantization.given else quantization.command
    return deploy_file(source, point.config.precision, quantize)


def deploy_file(source: str, precision: Precision, quantize: str | None) -> DeployModel:
    """The model `precision` loads, made from the user's model `source`: for int8 the INT8 IR `quantize` (the
    `ov-tuner quantize` line that makes the one measured) writes beside it (None: the model came quantized and is its
    own INT8 IR), the FP16 IR for fp16, an IR for a format OpenVINO converts rather than reads, else `source` itself.
    Never a file in ov-tuner's cache, which the deployment host does not have."""
    src = Path(source)
    if precision is Precision.INT8 and quantize is not None:
        return DeployModel(str(int8_ir_path(src)), quantize)
    if precision.fp16_weights:
        out = str(src.with_name(f"{src.stem}_fp16.xml"))
        if src.suffix == ".xml":
            code = (f"import openvino as ov; ov.save_model(ov.Core().read_model({source!r}), {out!r}, "
                    "compress_to_fp16=True)")
            return DeployModel(out, shlex.join(["python3", "-c", code]))
        return DeployModel(out, shlex.join(["ovc", source, "--output_model", out, "--compress_to_fp16=True"]))
    if src.suffix in (".xml", ".onnx"):
        return DeployModel(source)
    out = str(src.with_name(f"{src.stem}.xml"))
    return DeployModel(out, shlex.join(["ovc", source, "--output_model", out, "--compress_to_fp16=False"]))


def _reshape_lines(inputs: tuple[InputShape, ...] | None, batch: int) -> tuple[str, str | None]:
    """The Python line that gives the model the measured input shapes ('' where it has them already), and the
    benchmark_app -shape value (None where none is needed)."""
    if inputs is None:
        return (f"ov.set_batch(model, {batch})\n" if batch != 1 else ""), None
    if not any(i.reshaped for i in inputs):
        return "", None
    shapes = {i.name: list(i.measured) for i in inputs}
    shape = inputs[0].text() if len(inputs) == 1 else ",".join(f"{i.name}{i.text()}" for i in inputs)
    return f"model.reshape({shapes!r})\n", shape


def deploy_snippets(point: PointResult, source: str, quantization: Quantization | None = None,
                    config_file: str = LOAD_CONFIG_FILE, inputs: tuple[InputShape, ...] | None = None,
                    ) -> DeploySnippets:
    """The configuration as `compile_model` properties, a -load_config file and the benchmark_app line that loads it
    (named `config_file`), on the model the user gave `source` (or the IR to make from it: see deploy_model),
    reshaped to the input shapes the sweep compiled (`inputs`, the answer's: None where they are not known).

    benchmark_app refuses -nstreams, -nthreads and -pin beside a -hint, and with -hint none it compiles under the
    LATENCY hint: only -load_config sets what was measured. Its -nireq also sets PERFORMANCE_HINT_NUM_REQUESTS."""
    assert point.compile is not None, "only a compiled point can be deployed"
    c = point.config
    properties = point.deploy_properties()
    made = deploy_model(point, source, quantization)
    model = made.path
    reshape, shape = _reshape_lines(inputs, c.batch)
    python = (
        "import openvino as ov\n\n"
        "core = ov.Core()\n"
        f"model = core.read_model({model!r})\n"
        f"{reshape}"
        f"compiled = core.compile_model(model, {c.device!r}, {properties!r})\n"
        f"queue = ov.AsyncInferQueue(compiled, {point.nireq})\n"
    )
    args = ["benchmark_app", "-m", model, "-d", c.device, "-load_config", config_file, "-nireq", str(point.nireq),
            "-b", str(c.batch), *(("-shape", shape) if shape else ())]
    line = shlex.join(args)
    load_config = json.dumps({c.device: properties}, indent=2)
    script = f"cat > {shlex.quote(config_file)} <<'EOF'\n{load_config}\nEOF\n{line}"
    notes = []
    if point.nireq < point.streams:
        notes.append(f"benchmark_app's -nireq caps NUM_STREAMS: this line runs {point.nireq} stream(s), "
                     f"not {point.streams}")
    if inputs is None:
        notes.append(f"the input shapes the sweep compiled are not known here ({source} is not readable, or the "
                     f"results file keeps no --shape): these forms set batch {c.batch} alone; give the model the "
                     "other dimensions the sweep's --shape gave")
    return DeploySnippets(properties=properties, python=python, benchmark_app=script, benchmark_app_line=line,
                          load_config=load_config, notes=tuple(notes), model=made, config_file=config_file,
                          inputs=inputs)
