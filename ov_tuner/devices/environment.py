"""Where results were measured: the fields that decide whether two sets of results may be compared."""

from __future__ import annotations

import os
import platform
import socket
from pathlib import Path

import openvino as ov

from ov_tuner import __version__
from ov_tuner.devices.box import read_box
from ov_tuner.devices.modelfile import ModelSource
from ov_tuner.schema import Environment


def cpu_model() -> str:
    """The CPU's marketing name from /proc/cpuinfo, else what the platform module knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment(source: ModelSource) -> Environment:
    return Environment(
        ov_version=ov.get_version(),
        ov_tuner_version=__version__,
        host=socket.gethostname(),
        cpu_model=cpu_model(),
        cores=os.cpu_count() or 0,
        python=platform.python_version(),
        model_path=str(source.path),
        model_sha256=source.sha256,
        model_name=source.name,
        box=read_box(),
    )
