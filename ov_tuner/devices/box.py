"""The box this process runs in: the CPUs it may run on, and the CPU time and memory its cgroups allow it.

Why: inside a container OpenVINO sizes its threads and streams to the host's CPUs, not to the container's CPU
quota. A process allowed 2 CPUs' worth of time on a 64-CPU host that runs 64 threads is throttled in every
scheduler period, and the sweep measures the throttling. Knowing the box lets a sweep tune inside it.

Sources: os.sched_getaffinity (it already reflects cpuset cgroups and taskset), and the process's own cgroups as
/proc/self/cgroup names them: cgroup v2 cpu.max and memory.max, or cgroup v1 cpu.cfs_quota_us / cpu.cfs_period_us
and memory.limit_in_bytes. Every ancestor's limit binds too, so each is read from the process's cgroup up to the
mount's root and the tightest wins. A file that is missing or unreadable means no limit known, never an error.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath
from typing import TypeVar

from ov_tuner.schema import Box

# cgroup v1 writes "no limit" on memory as the largest page-aligned int64 (9223372036854771712); no box is that big.
UNLIMITED_MEMORY_BYTES = 2**60

_Limit = TypeVar("_Limit", int, float)


def parse_cpu_list(text: str) -> tuple[int, ...]:
    """The kernel's CPU list format (cpuset.cpus, taskset -c): "0-3,8" -> (0, 1, 2, 3, 8)."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        if part:
            first, _, last = part.partition("-")
            cpus.update(range(int(first), int(last or first) + 1))
    return tuple(sorted(cpus))


def parse_v1_quota(quota_us_text: str, period_us_text: str) -> float | None:
    """CPUs' worth of time from cgroup v1 cpu.cfs_quota_us and cpu.cfs_period_us; a quota of -1 means none."""
    quota, period = int(quota_us_text), int(period_us_text)
    return quota / period if quota > 0 and period > 0 else None


def parse_v2_cpu_max(text: str) -> float | None:
    """CPUs' worth of time from cgroup v2 cpu.max, "$MAX $PERIOD": "150000 100000" -> 1.5, "max 100000" -> None."""
    quota, period = text.split()
    return None if quota == "max" else int(quota) / int(period)


def parse_v1_memory_limit(text: str) -> int | None:
    """Bytes from cgroup v1 memory.limit_in_bytes; the huge values it writes for "no limit" give None."""
    limit = int(text)
    return limit if limit < UNLIMITED_MEMORY_BYTES else None


def parse_v2_memory_max(text: str) -> int | None:
    """Bytes from cgroup v2 memory.max; "max" gives None."""
    return None if text.strip() == "max" else int(text)


def parse_proc_cgroup(text: str) -> dict[str, str]:
    """Each controller's cgroup path from /proc/self/cgroup: "2:cpu,cpuacct:/x" -> cpu, cpuacct and cpu,cpuacct
    (v1 mounts are named either way) map to "/x"; the v2 line "0::/y" maps "" to "/y"."""
    paths: dict[str, str] = {}
    for line in text.splitlines():
        _, controllers, path = line.split(":", 2)
        for key in {controllers, *controllers.split(",")}:
            paths[key] = path
    return paths


def read_box(
    root: Path = Path("/sys/fs/cgroup"),
    proc_self_cgroup: Path = Path("/proc/self/cgroup"),
    affinity: Iterable[int] | None = None,
) -> Box:
    """This process's box; `affinity` stands in for os.sched_getaffinity(0) (tests)."""
    cpuset = tuple(sorted(set(_affinity() if affinity is None else affinity)))
    try:
        paths = parse_proc_cgroup(proc_self_cgroup.read_text())
    except (OSError, ValueError):
        paths = {}
    if (root / "cgroup.controllers").exists():
        levels = _up_to(root, paths.get("", "/"))
        quota = _tightest(levels, lambda d: parse_v2_cpu_max((d / "cpu.max").read_text()))
        memory = _tightest(levels, lambda d: parse_v2_memory_max((d / "memory.max").read_text()))
        source = "cgroup v2 cpu.max"
    else:
        quota = _tightest(_v1_levels(root, paths, "cpu"), _v1_quota)
        memory = _tightest(_v1_levels(root, paths, "memory"), _v1_memory_limit)
        source = "cgroup v1 cpu.cfs_quota_us"
    return Box(os.cpu_count() or len(cpuset), cpuset, quota, source if quota is not None else None, memory)


def _affinity() -> Iterable[int]:
    """The CPUs the scheduler lets this process use; every CPU where the OS cannot say (not Linux)."""
    if hasattr(os, "sched_getaffinity"):
        return os.sched_getaffinity(0)
    return range(os.cpu_count() or 1)


def _v1_quota(level: Path) -> float | None:
    return parse_v1_quota((level / "cpu.cfs_quota_us").read_text(), (level / "cpu.cfs_period_us").read_text())


def _v1_memory_limit(level: Path) -> int | None:
    return parse_v1_memory_limit((level / "memory.limit_in_bytes").read_text())


def _up_to(mount: Path, path: str) -> list[Path]:
    """The cgroup at `path` under `mount` and each of its ancestors, up to the mount's root."""
    parts = [part for part in PurePosixPath(path).parts if part not in ("/", ".", "..")]
    return [mount.joinpath(*parts[:depth]) for depth in range(len(parts), -1, -1)]


def _v1_levels(root: Path, paths: dict[str, str], controller: str) -> list[Path]:
    """Each v1 mount that may hold `controller` (root/cpu, root/cpu,cpuacct), walked up from the process's cgroup."""
    mounts = {key: path for key, path in paths.items() if controller in key.split(",")} or {controller: "/"}
    return [level for key, path in mounts.items() for level in _up_to(root / key, path)]


def _tightest(levels: Iterable[Path], read: Callable[[Path], _Limit | None]) -> _Limit | None:
    """The smallest limit along the levels; a level whose files are missing or unreadable sets none."""
    limits: list[_Limit] = []
    for level in levels:
        try:
            limit = read(level)
        except (OSError, ValueError):
            continue
        if limit is not None:
            limits.append(limit)
    return min(limits, default=None)
