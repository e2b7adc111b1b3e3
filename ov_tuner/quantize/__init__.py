"""INT8: the quantized IR NNCF makes from calibration data (ov_tuner.quantize.make), the one a sweep or a job
compiles (.ir), the inputs it calibrates on and those held apart for accuracy (.data), the agreement with FP32 that
accuracy control keeps (.agreement). Only .nncf_backend imports NNCF, an optional extra."""

from ov_tuner.quantize.ir import int8_ir
from ov_tuner.quantize.make import QuantizedIR, int8_ir_path, quantize_command, quantize_model

__all__ = ["QuantizedIR", "int8_ir", "int8_ir_path", "quantize_command", "quantize_model"]
