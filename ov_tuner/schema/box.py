"""The box a process runs in: what it may use of the host (ov_tuner.devices.box reads it)."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Box:
    """What this process may use of the host: where it may run, how much CPU time, how much memory."""

    host_cpus: int  # os.cpu_count()
    cpuset: tuple[int, ...]  # the CPUs this process may run on
    quota_cpus: float | None  # CPU time allowed per period, in CPUs' worth; None: unlimited
    quota_source: str | None  # the file the quota came from, e.g. "cgroup v2 cpu.max"
    memory_limit_bytes: int | None  # None: unlimited

    @property
    def cpus(self) -> float:
        """The CPUs' worth of time this process may use: the narrower of its cpuset and its quota."""
        return min(float(len(self.cpuset)), self.quota_cpus if self.quota_cpus is not None else math.inf)

    @property
    def limited(self) -> bool:
        """Whether the quota or the cpuset leaves this process less than the whole host."""
        return self.cpus < self.host_cpus

    @property
    def bounds(self) -> tuple[tuple[int, ...], float | None]:
        """What bounds the CPU a measurement gets here: results measured under other bounds do not mix."""
        return self.cpuset, self.quota_cpus
