"""An LLM folder with its weights compressed (NNCF's compress_weights, int8 or int4), made once and kept in
ov-tuner's cache beside the converted IRs, as the INT8 IRs of vision models are: a rerun, a resumed run and the
deploy form all find the same folder. A GGUF is compressed in the folder GenAI converts it to, where NNCF finds
matrices in floating point (an F16 GGUF's); a quantized GGUF's are 4- and 8-bit already (SmolLM2's Q4_1 file, its
token embedding Q8_0), and weights NNCF leaves as they were are refused in one line rather than measured as a
setting of their own."""

from __future__ import annotations

import shutil
from pathlib import Path

import openvino as ov

from ov_tuner.errors import BadInputError, OutputError
from ov_tuner.model.cache import made_once
from ov_tuner.quantize.nncf_backend import compress_weights
from ov_tuner.workloads.llm.folders import llm_weights_folder
from ov_tuner.workloads.llm.ir import MODEL_IR, MODEL_WEIGHTS
from ov_tuner.workloads.llm.schema import WEIGHTS_INPUT, LlmModel

WEIGHTS = ("int8", "int4")


def compressed_folder(model: LlmModel, weights: str) -> Path:
    """The folder of `model` (a GenAI folder) with `weights` compressed: the model IR made anew, every other file
    (tokenizer IRs, configs) copied."""
    folder = llm_weights_folder(model.sha256, weights)
    if (folder / MODEL_IR).is_file():
        return folder
    source = Path(model.path)
    try:
        return made_once(folder, lambda making: _compress_into(making, source, weights, model.width))
    except OSError as e:
        raise OutputError(f"cannot keep the {weights} weights of {source} under {folder.parent} ({e.strerror}); "
                          "set OV_TUNER_CACHE to a folder you can write") from e


def _compress_into(folder: Path, source: Path, weights: str, width: int) -> None:
    """`source`'s model IR with `weights` compressed, written into `folder` with every other file of it (tokenizer
    IRs, configs) copied; weights NNCF leaves as they were are one line."""
    for part in source.iterdir():
        if part.is_file() and part.name not in (MODEL_IR, MODEL_WEIGHTS):
            shutil.copy2(part, folder / part.name)
    ir = ov.Core().read_model(source / MODEL_IR)
    ov.save_model(compress_weights(ir, weights, _group_size(width)), folder / MODEL_IR)
    if model_weight_bytes(folder) >= model_weight_bytes(source):
        raise BadInputError(f"{WEIGHTS_INPUT} {weights}: NNCF finds no weight matrix to compress in {source} (its "
                            "matrices are stored in 8 bits or fewer already, as a quantized GGUF's are): leave the "
                            "weights as given")


def model_weight_bytes(path: Path) -> int:
    """The bytes of a model's weights, its IR's in a folder (the file itself otherwise): compression that compressed
    something makes them fewer, and a decode step reads them all."""
    return (path / MODEL_WEIGHTS).stat().st_size if path.is_dir() else path.stat().st_size


def _group_size(width: int) -> int:
    """int4's group: 128 input channels where the width divides by it, else 64, else per channel (-1)."""
    return next((g for g in (128, 64) if width and width % g == 0), -1)
