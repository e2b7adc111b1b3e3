"""Where ov-tuner keeps what it makes from a model (converted IRs, an LLM's compressed weights): one folder, so a
user can find and clear it."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """$OV_TUNER_CACHE, else ~/.cache/ov-tuner."""
    return Path(os.environ.get("OV_TUNER_CACHE", Path.home() / ".cache" / "ov-tuner"))
