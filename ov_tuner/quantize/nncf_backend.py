"""NNCF, the one place ov-tuner imports it: post-training quantization, with or without accuracy control.

NNCF is an optional extra (`pip install "ov-tuner[int8]"`); without it, asking for int8 is one line saying how to
install it. NNCF logs and draws progress bars on stdout; both are kept off ov-tuner's own output.
"""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import openvino as ov

from ov_tuner.errors import MissingExtraError, QuantizationError
from ov_tuner.schema import Int8Options

INSTALL_HINT = 'int8 needs NNCF, which is not installed: pip install "ov-tuner[int8]"'

# What a validation function returns to NNCF: the metric (higher is better) and each item's own value.
Validation = Callable[[ov.CompiledModel, Iterable[Any]], tuple[float, list[float]]]


def _nncf() -> Any:
    try:
        import nncf
    except ImportError as e:
        raise MissingExtraError(INSTALL_HINT) from e
    nncf.set_log_level(logging.ERROR)
    return nncf


def require_nncf() -> str:
    """NNCF's version, or MissingExtraError with the install line: checked before any work is done."""
    return str(_nncf().__version__)


@contextlib.contextmanager
def _running(nncf: Any) -> Iterator[None]:
    """NNCF's progress bars kept off stdout; any failure inside NNCF as one QuantizationError line."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            yield
    except Exception as e:  # NNCF raises its own errors and, on a graph it trips on, plain KeyError and the like
        first = (str(e).strip().splitlines() or [""])[0]
        raise QuantizationError(
            f"NNCF {nncf.__version__} could not quantize the model ({type(e).__name__}: {first[:200]}); "
            "sweep without int8, or quantize it yourself and sweep the quantized IR as given") from e


def _model_type(nncf: Any, transformer: bool) -> Any:
    """NNCF's model type: TRANSFORMER for a model with attention (it fails on some embeddings otherwise)."""
    return nncf.ModelType.TRANSFORMER if transformer else None


def quantize(model: ov.Model, calibration: Sequence[dict], options: Int8Options, transformer: bool) -> ov.Model:
    """`model` with INT8 quantization from NNCF's post-training quantization on `calibration` inputs."""
    nncf = _nncf()
    with _running(nncf):
        return nncf.quantize(model, nncf.Dataset(calibration), preset=nncf.QuantizationPreset(options.preset.value),
                             subset_size=len(calibration), model_type=_model_type(nncf, transformer))


def quantize_with_accuracy_control(model: ov.Model, calibration: Sequence[dict], held_apart: list[tuple[int, dict]],
                                   validate: Validation, options: Int8Options, transformer: bool) -> ov.Model:
    """`model` quantized so that `validate`'s metric on `held_apart` (index, inputs) items drops at most
    options.max_drop percentage points: NNCF puts the layers that cost it most back into float until it does."""
    assert options.max_drop is not None
    nncf = _nncf()
    with _running(nncf):
        return nncf.quantize_with_accuracy_control(
            model, nncf.Dataset(calibration), nncf.Dataset(held_apart, lambda item: item[1]), validate,
            max_drop=options.max_drop / 100, drop_type=nncf.DropType.ABSOLUTE,
            preset=nncf.QuantizationPreset(options.preset.value), subset_size=len(calibration),
            model_type=_model_type(nncf, transformer))


def compress_weights(model: ov.Model, weights: str, group_size: int) -> ov.Model:
    """An LLM's `model` with its weights compressed by NNCF: int8 (asymmetric, per channel) or int4 (asymmetric, in
    groups of `group_size` input channels, -1 per channel; every layer NNCF may take, its default keeping the
    embedding and the head at int8)."""
    nncf = _nncf()
    with _running(nncf):
        if weights == "int8":
            return nncf.compress_weights(model, mode=nncf.CompressWeightsMode.INT8_ASYM)
        return nncf.compress_weights(model, mode=nncf.CompressWeightsMode.INT4_ASYM, group_size=group_size, ratio=1.0)
