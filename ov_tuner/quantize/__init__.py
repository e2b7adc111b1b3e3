"""INT8: the quantized IR NNCF makes from calibration data (ov_tuner.quantize.make), the one a sweep or a job
compiles (.ir), where a model's INT8 IR lies (.paths), the inputs it calibrates on and those held apart for accuracy
(.data), the agreement with FP32 that accuracy control keeps (.agreement). Only .nncf_backend imports NNCF, an
optional extra. The package itself imports none of them: the deploy forms name the INT8 IR (.paths) without loading
OpenVINO or OpenCV."""
