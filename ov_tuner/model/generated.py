"""Generated input data: valid values for every input's element type, written into a request's own tensors before
any clock starts."""

from __future__ import annotations

import numpy as np
import openvino as ov


def _random_like(data: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Valid values for the tensor's type: normal floats, 0/1 for integers and booleans."""
    if data.dtype == np.bool_:
        return rng.integers(0, 2, size=data.shape).astype(bool)
    if np.issubdtype(data.dtype, np.integer):
        return rng.integers(0, 2, size=data.shape).astype(data.dtype)
    return rng.standard_normal(data.shape).astype(data.dtype)


def fill_inputs(request: ov.InferRequest, seed: int = 0) -> None:
    """Write deterministic data into the request's own input tensors, once, outside any timed loop."""
    rng = np.random.default_rng(seed)
    for port in request.model_inputs:
        data = request.get_tensor(port).data
        data[...] = _random_like(data, rng)


def input_sets(request: ov.InferRequest, count: int, seed: int = 1) -> list[dict[ov.ConstOutput, np.ndarray]]:
    """`count` different sets of host-side input arrays, for measuring what copying inputs in costs."""
    rng = np.random.default_rng(seed)
    return [{port: _random_like(request.get_tensor(port).data, rng) for port in request.model_inputs}
            for _ in range(count)]


def generated_inputs(ports: list[ov.Output], seed: int) -> dict[str, np.ndarray]:
    """One set of generated inputs for static `ports`, by input name: the values fill_inputs writes."""
    rng = np.random.default_rng(seed)
    return {port.get_any_name(): _random_like(np.zeros(list(port.get_shape()), port.get_element_type().to_dtype()),
                                              rng) for port in ports}
