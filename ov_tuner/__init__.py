"""ov-tuner: sweep OpenVINO streams x infer requests x batch x precision, measured correctly."""

__version__ = "0.2.0"
# The plug-in API's version (ov_tuner.plugin, docs/plugins.md), MAJOR.MINOR: a minor release adds names, a major one
# changes or removes some. A workload's Registration says the version it was written against.
API_VERSION = "1.1"
