"""Model files: where a model is, its identity (sha256), converting other formats, the IR cache, and the input
shapes and layouts a sweep sets."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import openvino as ov

from ov_tuner.devices.native import native_output_kept, ov_error_text, with_log
from ov_tuner.errors import Input, ModelError


@dataclass(frozen=True)
class ModelSource:
    """A model file and the identity that results are keyed by."""

    path: Path
    sha256: str

    @property
    def name(self) -> str:
        return self.path.stem


def model_files(path: Path) -> list[Path]:
    """An IR is an .xml and its .bin; other formats are one file."""
    if path.suffix == ".xml" and path.with_suffix(".bin").exists():
        return [path, path.with_suffix(".bin")]
    return [path]


def open_model_source(path: Path) -> ModelSource:
    """Check the model exists and hash it: an IR's xml and bin together, a SavedModel folder's every file."""
    if path.is_dir() and not (path / "saved_model.pb").is_file():
        raise ModelError(f"model {path} is a folder; give the model file itself, e.g. {path / 'model.xml'} "
                         "(a folder works only as a TensorFlow SavedModel)")
    if not path.exists():
        raise ModelError(f"model file {path} does not exist: give the path of an OpenVINO .xml, an .onnx, "
                         "or another model OpenVINO can convert")
    parts = sorted(f for f in path.rglob("*") if f.is_file()) if path.is_dir() else model_files(path)
    return ModelSource(path.resolve(), files_sha256(path, parts))


def files_sha256(path: Path, parts: list[Path]) -> str:
    """The sha256 of `parts` read in order: the identity of the model at `path` that they make up."""
    digest = hashlib.sha256()
    try:
        for part in parts:
            with part.open("rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    digest.update(chunk)
    except OSError as e:
        raise ModelError(f"cannot read model file {path}: {e.strerror}; check its permissions") from e
    return digest.hexdigest()


def convert(source: ModelSource) -> ov.Model:
    """Any format ov.convert_model reads, as an OpenVINO model."""
    with native_output_kept() as logged:
        try:
            return ov.convert_model(str(source.path))
        except Exception as e:  # convert_model raises framework-specific errors as well as RuntimeError
            raise ModelError(
                f"{source.path} is not a model OpenVINO can read or convert ({ov_error_text(e)}); "
                "give an OpenVINO IR, ONNX, TensorFlow, TFLite or PaddlePaddle model"
            ) from with_log(e, logged())


def shape_text(shape: ov.PartialShape) -> str:
    return "[" + ",".join("?" if d.is_dynamic else str(d.get_length()) for d in shape) + "]"


def set_layouts(model: ov.Model, layouts: dict[str, str]) -> None:
    """Give inputs a layout (by input name, "" for every input), e.g. NCHW, NHWC, NC, N?."""
    for port in model.inputs:
        name = port.get_any_name()
        text = layouts.get(name, layouts.get(""))
        if text is None:
            continue
        layout = ov.Layout(text)
        rank = port.get_partial_shape().rank
        if rank.is_static and len(text.strip("[]")) != rank.get_length() and "..." not in text:
            raise ModelError(f"{Input.LAYOUT}: {text} has {len(text.strip('[]'))} dimensions but input {name} has "
                             f"{rank.get_length()}; give one letter per dimension, e.g. NCHW")
        port.get_node().set_layout(layout)


def check_shapes(model: ov.Model, shapes: dict[str, list[int]]) -> None:
    """Every --shape names an input the model has, with that input's number of dimensions."""
    inputs = ", ".join(f"{p.get_any_name()}{shape_text(p.get_partial_shape())}" for p in model.inputs)
    for name, dims in shapes.items():
        ports = [p for p in model.inputs if not name or name in p.get_names()]
        if not ports:
            raise ModelError(f"{Input.SHAPE}: the model has no input named {name}; its inputs are {inputs}")
        for port in ports:
            rank = port.get_partial_shape().rank
            if rank.is_static and rank.get_length() != len(dims):
                example = ",".join(example_dims(port.get_partial_shape(), batch_index(port), 1))
                raise ModelError(f"{Input.SHAPE}: {name or 'the shape'} [{','.join(map(str, dims))}] has {len(dims)} "
                                 f"dimensions, but input {port.get_any_name()} has {rank.get_length()}; e.g. "
                                 f"{Input.SHAPE} {port.get_any_name()}[{example}]")


def example_dims(shape: ov.PartialShape, batch_axis: int | None, batch: int) -> list[str]:
    """A static example of a shape: the batch on its axis, 224 for any other dynamic dimension."""
    return [str(batch) if i == batch_axis else ("224" if d.is_dynamic else str(d.get_length()))
            for i, d in enumerate(shape)]


def batch_index(port: ov.Output) -> int | None:
    """The batch axis of an input: from its layout; axis 0 when it has none; None when its layout has no N."""
    layout = ov.layout_helpers.get_layout(port)
    if layout.empty:
        return 0
    if ov.layout_helpers.has_batch(layout):
        return int(ov.layout_helpers.batch_idx(layout)) % port.get_partial_shape().rank.get_length()
    return None
