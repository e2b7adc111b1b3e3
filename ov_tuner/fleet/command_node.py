"""Any workload's own command on a target host (`ov-tuner fleet WORKLOAD ...`): the task that runs it there, as a user
runs it, and the keeper that holds its results file on the driver's machine.

Why its own command, in a child: a workload is a plug-in (ov_tuner.registry), so the fleet knows nothing of it but
its name and its command line; the child's results file is the node's, and every change to it is copied to the
keeper before the task looks again (a consistent copy, through SQLite's backup): what a trial stored reaches the
driver's disk about POLL_S later, and a node that dies loses at most that. Its input files are read at the paths
given, on every host (a shared folder, or the same files copied there): only `fleet sweep` carries its model itself.
A rerun starts each host from the driver's copy, so the command resumes as it does on one machine.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import ray

# How often the task looks at its results file and its command's output.
POLL_S = 0.5


@dataclass(frozen=True)
class CommandOutcome:
    """How the command ended on a host: its exit status, and its last line on standard error (the one line of an
    ov-tuner error) where it failed."""

    returncode: int
    said: str


class FileKeeper:
    """One host's results file on the driver's machine (run there as a Ray actor), kept whole as the node's copy
    grows, with the node's name in its environment; and the command's output lines, until the driver drains them."""

    def __init__(self, path: Path, node: str) -> None:
        self._path = path
        self._node = node
        self._lines: list[str] = []

    def where(self) -> str:
        """The kept file's path, which the command's lines name in place of the node's."""
        return str(self._path)

    def read(self) -> bytes | None:
        """The file as kept (a rerun's start), None where there is none."""
        return self._path.read_bytes() if self._path.is_file() else None

    def keep(self, copy: bytes) -> None:
        """Replace the kept file with the node's newest copy, all at once: a reader never sees half of one."""
        written = self._path.with_name(self._path.name + ".part")
        written.write_bytes(copy)
        with sqlite3.connect(written) as db:  # the node's name, as a fleet sweep records it
            row = db.execute("SELECT value FROM meta WHERE key = 'environment'").fetchone()
            if row is not None:
                db.execute("UPDATE meta SET value = ? WHERE key = 'environment'",
                           (json.dumps({**json.loads(row[0]), "node": self._node}),))
        db.close()
        os.replace(written, self._path)

    def said(self, lines: list[str]) -> None:
        self._lines += lines

    def drain(self) -> list[str]:
        """The command's output lines since the last drain."""
        lines, self._lines = self._lines, []
        return lines


def command_here(workload: str, args: list[str], keeper: ray.actor.ActorHandle) -> CommandOutcome:
    """`ov-tuner WORKLOAD ARGS --out FILE` on this host, FILE starting from the keeper's copy, each change to it
    sent to the keeper (and waited for) and each line it prints told to it (not waited for), naming the kept file
    where it names FILE."""
    os.environ.pop("OMP_NUM_THREADS", None)  # Ray sets 1 in its workers; a workload measures the host as it is
    with tempfile.TemporaryDirectory(prefix="ov-tuner-fleet-") as folder:
        results, printed, errors = (Path(folder) / name for name in ("results.db", "out.txt", "err.txt"))
        kept, kept_at = ray.get([keeper.read.remote(), keeper.where.remote()])
        if kept is not None:
            results.write_bytes(kept)
        with printed.open("w") as out, errors.open("w") as err:
            child = subprocess.Popen([sys.executable, "-m", "ov_tuner", workload, *args, "--out", str(results)],
                                     stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        sent, told = _stamp(results), 0
        while True:
            ended = child.poll() is not None
            if (stamp := _stamp(results)) != sent:
                ray.get(keeper.keep.remote(_copy(results, Path(folder) / "copy.db")))
                sent = stamp
            lines = printed.read_text(errors="replace").splitlines()
            keeper.said.remote([line.replace(str(results), kept_at) for line in lines[told:]])
            told = len(lines)
            if ended:
                break
            time.sleep(POLL_S)
        last = [line for line in errors.read_text(errors="replace").splitlines() if line.strip()]
        return CommandOutcome(child.returncode, last[-1].strip() if last else "")


def _stamp(path: Path) -> tuple[int, int] | None:
    """When the file last changed, and its size; None where there is none."""
    try:
        found = path.stat()
    except FileNotFoundError:
        return None
    return found.st_mtime_ns, found.st_size


def _copy(path: Path, into: Path) -> bytes:
    """A consistent copy of the SQLite file at `path`, written by another process while it is read."""
    into.unlink(missing_ok=True)
    with sqlite3.connect(path) as source, sqlite3.connect(into) as copy:
        source.backup(copy)
    source.close()
    copy.close()
    return into.read_bytes()
