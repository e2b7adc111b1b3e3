"""A Ray cluster on this machine: to try a fleet sweep on one box, and for the tests and the benchmark.

Each node is `ray start --block` in a session of its own. Ray's workers put themselves in process groups of
their own but stay in that session, so stopping a node kills every process of the session by its own id:
raylet, workers and all, as a machine that loses power would. Nothing outlives stop_all().
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from ov_tuner.fleet.cluster import RESOURCE

RAY = Path(sys.executable).with_name("ray")
# The head notices a node that stopped within ~2 s rather than the default ~30 s.
QUICK_HEALTH = {"RAY_health_check_period_ms": "500", "RAY_health_check_failure_threshold": "4",
                "RAY_health_check_initial_delay_ms": "500", "RAY_USAGE_STATS_ENABLED": "0"}


class LocalCluster:
    """A head and named nodes on this machine, each offering RESOURCE, in `folder` (Ray's socket paths must
    stay short: a folder under /tmp); `env`: what each node's environment adds to this process's (a package
    installed on every host, as a plug-in workload's must be for `fleet NAME` to run it there)."""

    def __init__(self, folder: Path, env: Mapping[str, str] | None = None) -> None:
        self.folder = folder
        self.env = {**os.environ, **QUICK_HEALTH, **(env or {})}
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.address = f"127.0.0.1:{self.port}"
        self.nodes: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str) -> None:
        where = (["--head", "--port", str(self.port), "--temp-dir", str(self.folder), "--include-dashboard", "false"]
                 if not self.nodes else ["--address", self.address])
        log = (self.folder / f"{name}.log").open("ab")
        self.nodes[name] = subprocess.Popen(
            [str(RAY), "start", "--block", *where, "--node-name", name, "--num-cpus", "1",
             "--resources", f'{{"{RESOURCE}": 1}}', "--disable-usage-stats"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=self.env)
        self._wait_for(name)

    def _wait_for(self, name: str) -> None:
        probe = (f"import ray; ray.init(address='{self.address}', logging_level=40); "
                 f"print(sorted(n['NodeName'] for n in ray.nodes() if n['Alive']))")
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=self.env)
            if f"'{name}'" in done.stdout:
                return
            time.sleep(0.5)
        raise RuntimeError(f"ray node {name} did not join: {(self.folder / f'{name}.log').read_text()[-2000:]}")

    def stop(self, name: str) -> None:
        """Kill every process of the node's session, as a machine that loses power would."""
        session = self.nodes.pop(name).pid
        for pid in _session_members(session):
            with contextlib.suppress(ProcessLookupError):  # it ended on its own meanwhile
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while _session_members(session) and time.monotonic() < deadline:
            time.sleep(0.05)

    def stop_all(self) -> None:
        for name in reversed(list(self.nodes)):  # the second node first, the head last
            self.stop(name)


def _session_members(session: int) -> list[int]:
    """Process ids in the session `session` (field 6 of /proc/PID/stat), zombies too (they still hold the id)."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[3]) == session:
                members.append(int(entry.name))
    return members
