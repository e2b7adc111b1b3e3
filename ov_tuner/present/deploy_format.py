"""The forms `recommend --format` offers, apart from what writes them: the command line builds its options from this
enum without importing the answer, the runtime or numpy."""

from __future__ import annotations

from enum import Enum


class DeployFormat(str, Enum):
    """What `recommend` prints: the answer with every form (text), or one form alone, ready to write to a file."""

    TEXT = "text"
    PYTHON = "python"
    BENCHMARK_APP = "benchmark_app"
    LOAD_CONFIG = "load_config"
    OVMS = "ovms"
    DLSTREAMER = "dlstreamer"
    KUBERNETES = "kubernetes"
    RAY = "ray"
    JSON = "json"
