"""Where ov-tuner keeps what it makes from a model (converted IRs, an LLM's compressed weights): one folder, so a
user can find and clear it; and how a folder in it is made once."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path


def cache_dir() -> Path:
    """$OV_TUNER_CACHE, else ~/.cache/ov-tuner."""
    return Path(os.environ.get("OV_TUNER_CACHE", Path.home() / ".cache" / "ov-tuner"))


def made_once(folder: Path, make: Callable[[Path], object]) -> Path:
    """`folder`, made by `make`, which fills a `.making` sibling renamed into place only once complete: a make cut
    short (Ctrl-C, a full disk, an error) leaves nothing that passes for made, and the next make starts clean. Raises
    what `make` raises, and OSError where the cache cannot be written (the caller names what it keeps where)."""
    making = folder.with_name(folder.name + ".making")
    shutil.rmtree(making, ignore_errors=True)
    making.mkdir(parents=True)
    try:
        make(making)
    except BaseException:
        shutil.rmtree(making, ignore_errors=True)
        raise
    making.rename(folder)
    return folder
