"""ov-tuner: sweep OpenVINO streams x infer requests x batch x precision, measured correctly."""

__version__ = "0.1.0"
