"""The input shapes the sweep compiled, read again where the answer is built, so that the deploy forms reshape the
model as the sweep did without opening it themselves."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ov_tuner.errors import OvTunerError
from ov_tuner.schema import ModelInputs, PointResult


@dataclass(frozen=True)
class InputShape:
    """One model input: its dimensions in the model file (None: dynamic) and as the sweep compiled them."""

    name: str
    stored: tuple[int | None, ...]
    measured: tuple[int, ...]

    @property
    def reshaped(self) -> bool:
        return self.measured != self.stored

    def text(self) -> str:
        """'[2,3,224,224]', as benchmark_app's -shape writes a shape."""
        return "[" + ",".join(map(str, self.measured)) + "]"


def measured_inputs(point: PointResult, source: str, given: ModelInputs | None = None,
                    ) -> tuple[InputShape, ...] | None:
    """The input shapes the sweep compiled: the model read again and given the sweep's --layout and --shape (`given`,
    kept in the results file) and the measured batch, by the sweep's own reshape. Read from the IR that was compiled,
    else from the model the user gave; None where neither is readable here, or the reshape needs a --shape that a
    results file from before ov-tuner kept them does not hold."""
    assert point.compile is not None, "only a compiled point can be deployed"
    readable = list(dict.fromkeys(p for p in (point.compile.ir_path, source) if p and Path(p).is_file()))
    if not readable:
        return None
    from ov_tuner.devices.modelfile import set_layouts  # OpenVINO loads only where a model is read again
    from ov_tuner.devices.runtime import Runtime

    runtime = Runtime()
    for path in readable:
        try:
            model = runtime.read_ir(Path(path))
            stored = [tuple(None if d.is_dynamic else d.get_length() for d in port.get_partial_shape())
                      for port in model.inputs]
            set_layouts(model, given.layouts if given else {})
            runtime.reshape(model, point.config.batch, given.shapes if given else {})
        except OvTunerError:
            continue
        return tuple(InputShape(port.get_any_name(), before, tuple(port.get_shape()))
                     for port, before in zip(model.inputs, stored, strict=True))
    return None
