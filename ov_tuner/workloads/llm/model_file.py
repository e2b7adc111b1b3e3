"""An LLM as users have it, read and checked before anything is measured: a GGUF file (llama.cpp's, which GenAI
loads directly, tokenizer included) or a GenAI model folder (what `optimum-cli export openvino` writes: the model IR
beside its tokenizer and detokenizer IRs). Each mistake is one line that says what GenAI needs instead."""

from __future__ import annotations

import json
from pathlib import Path

import openvino as ov

from ov_tuner.devices.modelfile import files_sha256
from ov_tuner.devices.native import ov_error_text
from ov_tuner.errors import BadInputError, Input, ModelError
from ov_tuner.workloads.llm.ir import MODEL_IR
from ov_tuner.workloads.llm.schema import DQ_GROUP_SIZE_INPUT, KV_PRECISION_INPUT, LlmFormat, LlmModel, LlmSpace

# What the optional extra brings, and how to add it.
EXTRA_HINT = "install ov-tuner's llm extra: pip install 'ov-tuner[llm]' (bash scripts/setup does)"
# The architectures GenAI's GGUF reader builds, and the types it reads a weight matrix in.
GGUF_ARCHITECTURES = ("llama", "qwen2", "qwen3")
GGUF_MATRIX_TYPES = ("F16", "Q8_0", "Q4_0", "Q4_1", "Q4_K", "Q6_K")
FOLDER_FILES = (MODEL_IR, "openvino_tokenizer.xml", "openvino_detokenizer.xml")


def genai_version() -> str:
    """The installed OpenVINO GenAI's version, or one line saying how to install it."""
    try:
        import openvino_genai
    except ImportError as e:
        raise BadInputError(f"ov-tuner llm needs OpenVINO GenAI, which is not installed: {EXTRA_HINT}") from e
    return str(openvino_genai.__version__)


def check_plugin_values(device: str, space: LlmSpace) -> None:
    """Every KV cache precision and inference precision hint searched is a value the device takes: the device
    itself judges, compiling a one-operation model with it (set_property on a device whose plugin is loaded already
    takes any value without a word). A pair it refuses only together (a bf16 CPU's f32 KV cache) is found when the
    pipeline is built: a failed trial with the reason."""
    core = ov.Core()
    value_in = ov.opset13.parameter([1], ov.Type.f32)
    probe = ov.Model([ov.opset13.relu(value_in)], [value_in])
    for given, key, values in ((KV_PRECISION_INPUT, "KV_CACHE_PRECISION", space.kv_cache_precisions),
                               (Input.PRECISION, "INFERENCE_PRECISION_HINT", space.inference_precisions),
                               (DQ_GROUP_SIZE_INPUT, "DYNAMIC_QUANTIZATION_GROUP_SIZE", space.dq_group_sizes)):
        for value in (v for v in values if v is not None):
            try:
                core.compile_model(probe, device, {key: value})
            except RuntimeError as e:
                raise BadInputError(f"{given} {value}: {device} refuses {key}={value} ({ov_error_text(e)}); give "
                                    "values it takes") from e


def read_llm(path: Path) -> LlmModel:
    """The model at `path`, checked as GenAI will read it."""
    if not path.exists():
        raise ModelError(f"model {path} does not exist: give a GGUF file or a GenAI model folder (as `optimum-cli "
                         "export openvino` writes it)")
    if path.is_dir():
        return _folder(path)
    if path.suffix.lower() == ".gguf":
        return _gguf(path)
    raise ModelError(f"{path} is not an LLM GenAI serves{_inputs_of(path)}: give a GGUF file or a GenAI model folder "
                     f"(the model IR with openvino_tokenizer.xml and openvino_detokenizer.xml); tune another model "
                     f"with `ov-tuner sweep {path}`")


def _inputs_of(path: Path) -> str:
    """What the model file takes, where OpenVINO reads it: ' (its inputs: data [1,3,224,224])'."""
    try:
        model = ov.Core().read_model(path)
    except RuntimeError:
        return ""
    if any("input_ids" in port.get_names() for port in model.inputs):
        return f" alone (it is the model IR of a GenAI folder: give the folder, {path.parent})"
    ports = ", ".join(f"{port.get_any_name()} {port.get_partial_shape()}" for port in model.inputs)
    return f" (its inputs: {ports})"


def _gguf(path: Path) -> LlmModel:
    try:
        import gguf
    except ImportError as e:
        raise BadInputError(f"reading a GGUF file needs the gguf package: {EXTRA_HINT}") from e
    try:
        reader = gguf.GGUFReader(path)
    except (ValueError, OSError) as e:
        raise ModelError(f"{path} is not a GGUF file GenAI reads ({e}); give a llama.cpp GGUF") from e

    def field(key: str) -> object:
        found = reader.fields.get(key)
        return None if found is None else found.contents()

    architecture = str(field("general.architecture"))
    if architecture not in GGUF_ARCHITECTURES:
        raise ModelError(f"{path} is a {architecture} GGUF; GenAI's GGUF reader builds {', '.join(GGUF_ARCHITECTURES)}"
                         ": export the model with `optimum-cli export openvino` and give its folder")
    if field("tokenizer.ggml.model") is None:
        raise ModelError(f"{path} carries no tokenizer (tokenizer.ggml.* keys); write the GGUF with its tokenizer, "
                         "as llama.cpp's convert_hf_to_gguf.py does")
    matrices = [t for t in reader.tensors if len(t.shape) >= 2 and t.tensor_type.name not in GGUF_MATRIX_TYPES]
    if matrices:
        kinds = sorted({t.tensor_type.name for t in matrices})
        raise ModelError(f"{path} holds {'/'.join(kinds)} weight matrices ({matrices[0].name} and "
                         f"{len(matrices) - 1} more); GenAI reads {', '.join(GGUF_MATRIX_TYPES)}: write it as F16 "
                         "(llama.cpp's convert_hf_to_gguf.py, out type f16) or quantize it with llama-quantize")
    embedding = next(t for t in reader.tensors if t.name == "token_embd.weight")
    return LlmModel(path=str(path.resolve()), format=LlmFormat.GGUF, sha256=files_sha256(path, [path]),
                    architecture=architecture, layers=int(str(field(f"{architecture}.block_count"))),
                    width=int(str(field(f"{architecture}.embedding_length"))), vocab=int(embedding.shape[-1]),
                    context=int(str(field(f"{architecture}.context_length") or 0)),
                    heads=int(str(field(f"{architecture}.attention.head_count") or 0)),
                    kv_heads=int(str(field(f"{architecture}.attention.head_count_kv") or 0)),
                    feed_forward=int(str(field(f"{architecture}.feed_forward_length") or 0)))


def _folder(path: Path) -> LlmModel:
    missing = [name for name in FOLDER_FILES if not (path / name).is_file()]
    if MODEL_IR in missing:
        raise ModelError(f"folder {path} holds no openvino_model.xml: give a GenAI model folder (as `optimum-cli "
                         "export openvino` writes it) or a GGUF file")
    if missing:
        raise ModelError(f"folder {path} has no {' or '.join(missing)}: GenAI needs the tokenizer's IRs beside the "
                         "model; `optimum-cli export openvino` writes them, as does openvino-tokenizers' "
                         "convert_tokenizer with its detokenizer asked for")
    model = ov.Core().read_model(path / MODEL_IR)
    if not any("input_ids" in port.get_names() for port in model.inputs):
        ir = path / FOLDER_FILES[0]
        raise ModelError(f"{ir} is not an LLM GenAI serves{_inputs_of(ir)}: tune it with `ov-tuner sweep {ir}`")
    config = _config(path)
    parts = sorted(f for f in path.rglob("*") if f.is_file())
    return LlmModel(path=str(path.resolve()), format=LlmFormat.FOLDER, sha256=files_sha256(path, parts),
                    architecture=str(config.get("model_type", "unknown")),
                    layers=int(config.get("num_hidden_layers", 0)), width=int(config.get("hidden_size", 0)),
                    vocab=int(config.get("vocab_size", 0)), context=int(config.get("max_position_embeddings", 0)),
                    heads=int(config.get("num_attention_heads", 0)),
                    kv_heads=int(config.get("num_key_value_heads", config.get("num_attention_heads", 0))),
                    feed_forward=int(config.get("intermediate_size", 0)))


def _config(path: Path) -> dict:
    """The folder's config.json (Hugging Face's), empty where it has none."""
    try:
        return dict(json.loads((path / "config.json").read_text()))
    except (OSError, ValueError):
        return {}
