"""Output accuracy's runs: the same fixed inputs through the FP32 reference (CPU, f32 hint) and through each compiled
configuration, outside every timed loop (ov_tuner.analyse.accuracy compares them). The reference is computed once
per batch and kept in the results file.

The reference runs its first input twice: a model whose outputs differ between two runs of the same input is
not deterministic, and its comparison would measure that, not the precision; it is reported instead.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import openvino as ov

from ov_tuner.model.inputs import InputData
from ov_tuner.model.outputs import output_name


@dataclass(frozen=True)
class Reference:
    """The FP32 reference's outputs on `inputs` fixed inputs at one batch, by output name (inputs on axis 0)."""

    batch: int
    inputs: int
    outputs: dict[str, np.ndarray]
    deterministic: bool

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        save: Callable[..., None] = np.savez_compressed  # output names become the archive's names
        save(buffer, **self.outputs)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, batch: int, inputs: int, deterministic: bool, blob: bytes) -> Reference:
        with np.load(io.BytesIO(blob)) as arrays:
            return cls(batch, inputs, {name: arrays[name] for name in arrays.files}, deterministic)


def run_outputs(compiled: ov.CompiledModel, data: InputData, batch: int, inputs: int) -> dict[str, np.ndarray]:
    """Every output on the fixed inputs: request i gets input set i (seeded, or the i-th batch of images)."""
    request = compiled.create_infer_request()
    names = [output_name(port, i) for i, port in enumerate(compiled.outputs)]
    collected: dict[str, list[np.ndarray]] = {name: [] for name in names}
    for i in range(math.ceil(inputs / batch)):
        data.fill(request, i, seed=i)
        request.infer()
        for name, port in zip(names, compiled.outputs, strict=True):
            collected[name].append(np.array(request.get_tensor(port).data, copy=True))
    return {name: np.concatenate(parts)[:inputs] if parts[0].ndim else np.stack(parts)
            for name, parts in collected.items()}


def reference(compiled: ov.CompiledModel, data: InputData, batch: int, inputs: int) -> Reference:
    """The reference outputs, and whether a second run of the first input gave the same ones."""
    outputs = run_outputs(compiled, data, batch, inputs)
    again = run_outputs(compiled, data, batch, min(batch, inputs))
    deterministic = all(np.array_equal(outputs[name][: len(values)], values) for name, values in again.items())
    return Reference(batch, inputs, outputs, deterministic)
