"""NNCF, the one place ov-tuner imports it: post-training quantization, with or without accuracy control.

NNCF is an optional extra (`pip install "ov-tuner[int8]"`); without it, asking for int8 is one line saying how to
install it. NNCF logs and draws progress bars on stdout; both are kept off ov-tuner's own output.
"""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import openvino as ov

from ov_tuner.errors import MissingExtraError
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


def quantize(model: ov.Model, calibration: Sequence[dict], options: Int8Options) -> ov.Model:
    """`model` with INT8 quantization from NNCF's post-training quantization on `calibration` inputs."""
    nncf = _nncf()
    with contextlib.redirect_stdout(io.StringIO()):  # NNCF's progress bars
        return nncf.quantize(model, nncf.Dataset(calibration), preset=nncf.QuantizationPreset(options.preset.value),
                             subset_size=len(calibration))


def quantize_with_accuracy_control(model: ov.Model, calibration: Sequence[dict], held_apart: list[tuple[int, dict]],
                                   validate: Validation, options: Int8Options) -> ov.Model:
    """`model` quantized so that `validate`'s metric on `held_apart` (index, inputs) items drops at most
    options.max_drop percentage points: NNCF puts the layers that cost it most back into float until it does."""
    assert options.max_drop is not None
    nncf = _nncf()
    with contextlib.redirect_stdout(io.StringIO()):
        return nncf.quantize_with_accuracy_control(
            model, nncf.Dataset(calibration), nncf.Dataset(held_apart, lambda item: item[1]), validate,
            max_drop=options.max_drop / 100, drop_type=nncf.DropType.ABSOLUTE,
            preset=nncf.QuantizationPreset(options.preset.value), subset_size=len(calibration))
