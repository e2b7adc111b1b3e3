"""Run this process's own measurements inside a CPU quota of N CPUs, as a container given `--cpus N` would be.

Why: OpenVINO sizes its threads and streams to the host's CPUs, not to a container's CPU quota, so tuning on a big
machine for a 2-CPU pod means measuring under that pod's quota. cpu_quota makes a child of the process's own cpu
cgroup (cgroup v1 cpu.cfs_quota_us, or v2 cpu.max), moves the whole process (every thread) into it, and on the way
out, also on an exception or Ctrl-C, moves it back and removes the child. A run killed outright (SIGKILL) never gets
there, so each start first removes the children such runs left: empty, and named for a process that is gone. Where the
host will not allow a quota (not root, a read-only or missing cpu controller, v2 without cpu delegated)
QuotaUnavailable says why in one line.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ov_tuner.devices.box import Box, _up_to, parse_proc_cgroup, read_box
from ov_tuner.errors import BadInputError, OvTunerError

# The kernel's bounds on a CFS period and its smallest quota (kernel/sched/core.c), in microseconds.
MIN_PERIOD_US, MAX_PERIOD_US, MIN_QUOTA_US = 1_000, 1_000_000, 1_000
PREFIX = "ov-tuner-"  # a child's name is this and the pid of the process that made it


class QuotaUnavailable(OvTunerError):
    """This host will not let ov-tuner put itself under a CPU quota; the message says why and what to do instead."""

    def __init__(self, reason: str, cpus: float) -> None:
        super().__init__(
            f"cannot limit ov-tuner to {cpus:g} CPUs here: {reason}; run ov-tuner inside a container limited to "
            f"{cpus:g} CPUs (docker run --cpus {cpus:g} ...), or as root where the cgroup cpu controller is writable"
        )


@dataclass(frozen=True)
class Quota:
    """The quota a process runs under: its box read from inside, the cgroup made for it (gone on the way out), and the
    cgroups killed runs had left beside that one, removed before it was made."""

    box: Box
    cgroup: Path
    removed: tuple[Path, ...]


@contextmanager
def cpu_quota(
    cpus: float,
    period_us: int = 100_000,
    *,
    root: Path = Path("/sys/fs/cgroup"),
    proc_self_cgroup: Path = Path("/proc/self/cgroup"),
) -> Iterator[Quota]:
    """Run the body with this process allowed `cpus` CPUs' worth of time per `period_us`; yields the box as read
    from inside (the caller stores the quota it really got) and the leftovers it removed (the caller says so)."""
    quota_us = _validated_quota_us(cpus, period_us, read_box(root, proc_self_cgroup))
    parent, limits = _own_cpu_cgroup(root, proc_self_cgroup, cpus)
    if limits == "cpu.max":
        files = {"cpu.max": f"{quota_us} {period_us}"}
    else:
        files = {"cpu.cfs_period_us": str(period_us), "cpu.cfs_quota_us": str(quota_us)}
    removed = _remove_leftovers(parent)
    child = parent / f"{PREFIX}{os.getpid()}"
    try:
        child.mkdir()
    except FileExistsError:
        raise QuotaUnavailable(f"{child} already exists and holds processes (move them out and rmdir it)",
                               cpus) from None
    except OSError as e:
        raise QuotaUnavailable(f"cannot make {child}: {e.strerror}", cpus) from None
    try:
        try:
            for name, text in files.items():
                (child / name).write_text(text)
            (child / "cgroup.procs").write_text(str(os.getpid()))  # moves every thread of this process
        except OSError as e:
            raise QuotaUnavailable(f"cannot set a quota on or enter {child}: {e.strerror}", cpus) from None
        yield Quota(read_box(root, proc_self_cgroup), child, removed)
    finally:
        _move_all(child, parent)
        child.rmdir()


def _validated_quota_us(cpus: float, period_us: int, box: Box) -> int:
    """The quota in microseconds per period; a request the kernel would refuse, or that limits nothing, is refused."""
    if not (math.isfinite(cpus) and cpus > 0):
        raise BadInputError(f"a CPU quota must be a number of CPUs above 0, got {cpus:g}")
    if not MIN_PERIOD_US <= period_us <= MAX_PERIOD_US:
        raise BadInputError(f"a CFS period must be {MIN_PERIOD_US}-{MAX_PERIOD_US} µs, got {period_us}")
    if cpus > box.cpus:
        raise BadInputError(
            f"a quota of {cpus:g} CPUs is more than the {box.cpus:g} this process may use (host: {box.host_cpus} "
            f"CPUs), so it would limit nothing; ask for at most {box.cpus:g}"
        )
    quota_us = round(cpus * period_us)
    if quota_us < MIN_QUOTA_US:
        raise BadInputError(f"{cpus:g} CPUs is {quota_us} µs per {period_us} µs period; the kernel's least is "
                            f"{MIN_QUOTA_US} µs: ask for at least {MIN_QUOTA_US / period_us:g} CPUs")
    return quota_us


def _own_cpu_cgroup(root: Path, proc_self_cgroup: Path, cpus: float) -> tuple[Path, str]:
    """The process's own cpu cgroup, under which the child goes, and the file that sets a quota there."""
    try:
        paths = parse_proc_cgroup(proc_self_cgroup.read_text())
    except (OSError, ValueError):
        paths = {}
    if (root / "cgroup.controllers").exists():
        parent, limits = _up_to(root, paths.get("", "/"))[0], "cpu.max"
        if "cpu" not in _words(parent / "cgroup.controllers"):
            raise QuotaUnavailable(f"cgroup v2 without the cpu controller delegated to {parent}", cpus)
        if parent != root:  # the hierarchy's root alone may hold processes and limit its children
            raise QuotaUnavailable(f"cgroup v2 allows no cpu limit below {parent}, which holds processes", cpus)
    else:
        mounts = {key: path for key, path in paths.items() if "cpu" in key.split(",")} or {"cpu": "/"}
        found = [_up_to(root / key, path)[0] for key, path in mounts.items()]
        parent, limits = next((d for d in found if (d / "cpu.cfs_quota_us").exists()), found[0]), "cpu.cfs_quota_us"
        if not (parent / limits).exists():
            raise QuotaUnavailable(f"no cgroup v1 cpu controller with a CFS quota at {parent}", cpus)
    if not os.access(parent, os.W_OK):
        raise QuotaUnavailable("not root" if os.geteuid() != 0 else f"{parent} is read-only", cpus)
    if limits == "cpu.max" and "cpu" not in _words(parent / "cgroup.subtree_control"):
        try:
            (parent / "cgroup.subtree_control").write_text("+cpu")
        except OSError as e:
            raise QuotaUnavailable(f"cannot enable cpu for children of {parent}: {e.strerror}", cpus) from None
    return parent, limits


def _remove_leftovers(parent: Path) -> tuple[Path, ...]:
    """The children of `parent` that killed runs left: no process in them, and the process their name carries gone
    (one that is alive may be between making its child and entering it). The kernel refuses to remove a cgroup that
    holds a process or a child cgroup, so one entered meanwhile stays."""
    removed = []
    for leftover in sorted(parent.glob(f"{PREFIX}*")):
        if _words(leftover / "cgroup.procs") or _alive(leftover.name.removeprefix(PREFIX)):
            continue
        try:
            leftover.rmdir()
        except OSError:  # entered meanwhile, removed by another run, or not a cgroup: not ours to force
            continue
        removed.append(leftover)
    return tuple(removed)


def _alive(pid: str) -> bool:
    """Whether `pid` names another process that still runs (one killed but not yet reaped, a zombie, does not)."""
    if not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"  # the state follows the command name in parentheses


def _words(path: Path) -> list[str]:
    try:
        return path.read_text().split()
    except OSError:
        return []


def _move_all(child: Path, parent: Path) -> None:
    """Every process in `child` (this one, and any it started inside) back to `parent`, so the child can go."""
    for pid in (child / "cgroup.procs").read_text().split():
        try:
            (parent / "cgroup.procs").write_text(pid)
        except ProcessLookupError:  # it exited meanwhile
            continue
