"""The box a process runs in: the parsers on file text, read_box on fake cgroup trees (v1, v2, a tighter parent,
none at all), on this host, and inside a real child cgroup given half a CPU where this host lets a test make one."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ov_tuner.devices.box import (
    Box,
    parse_cpu_list,
    parse_proc_cgroup,
    parse_v1_memory_limit,
    parse_v1_quota,
    parse_v2_cpu_max,
    parse_v2_memory_max,
    read_box,
)

V1_UNLIMITED_MEMORY = "9223372036854771712\n"
GIB = 2**30


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def proc_cgroup(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "proc-self-cgroup"
    path.write_text(text)
    return path


@pytest.mark.parametrize(("text", "cpus"), [
    ("0-3,8,10-11\n", (0, 1, 2, 3, 8, 10, 11)),
    ("5", (5,)),
    ("2-2", (2,)),
    ("3,1,1-2", (1, 2, 3)),
    ("\n", ()),
])
def test_parse_cpu_list(text: str, cpus: tuple[int, ...]) -> None:
    assert parse_cpu_list(text) == cpus


def test_parsers_read_limits_and_their_unlimited_forms() -> None:
    assert parse_v1_quota("50000\n", "100000\n") == pytest.approx(0.5)
    assert parse_v1_quota("-1\n", "100000\n") is None
    assert parse_v2_cpu_max("150000 100000\n") == pytest.approx(1.5)
    assert parse_v2_cpu_max("max 100000\n") is None
    assert parse_v1_memory_limit("536870912\n") == 512 * 2**20
    assert parse_v1_memory_limit(V1_UNLIMITED_MEMORY) is None
    assert parse_v2_memory_max("1073741824\n") == GIB
    assert parse_v2_memory_max("max\n") is None


def test_parse_proc_cgroup_names_joined_v1_controllers_each_way() -> None:
    paths = parse_proc_cgroup("4:memory:/process_api/abc\n2:cpu,cpuacct:/x\n0::/y\n")
    assert paths == {"memory": "/process_api/abc", "cpu,cpuacct": "/x", "cpu": "/x", "cpuacct": "/x", "": "/y"}


def test_v1_quota_of_one_cpu_and_a_memory_limit(tmp_path: Path) -> None:
    write(tmp_path, {
        "cpu/job/cpu.cfs_quota_us": "100000\n", "cpu/job/cpu.cfs_period_us": "100000\n",
        "memory/process_api/abc/memory.limit_in_bytes": f"{2 * GIB}\n",
    })
    cgroup = proc_cgroup(tmp_path, "4:memory:/process_api/abc\n1:cpu:/job\n")
    box = read_box(tmp_path, cgroup, affinity=range(8))
    assert box == Box(os.cpu_count() or 8, tuple(range(8)), 1.0, "cgroup v1 cpu.cfs_quota_us", 2 * GIB)
    assert box.cpus == pytest.approx(1.0)


def test_v1_unlimited(tmp_path: Path) -> None:
    write(tmp_path, {
        "cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n",
        "memory/memory.limit_in_bytes": V1_UNLIMITED_MEMORY,
    })
    box = read_box(tmp_path, proc_cgroup(tmp_path, "4:memory:/\n1:cpu:/\n"), affinity=[0, 1])
    assert (box.quota_cpus, box.quota_source, box.memory_limit_bytes) == (None, None, None)
    assert box.cpus == 2


def test_v1_comma_joined_cpu_mount(tmp_path: Path) -> None:
    write(tmp_path, {"cpu,cpuacct/x/cpu.cfs_quota_us": "250000\n", "cpu,cpuacct/x/cpu.cfs_period_us": "100000\n"})
    box = read_box(tmp_path, proc_cgroup(tmp_path, "2:cpu,cpuacct:/x\n"), affinity=range(4))
    assert box.quota_cpus == pytest.approx(2.5)
    assert box.cpus == pytest.approx(2.5)


@pytest.mark.parametrize(("cpu_max", "quota"), [("max 100000\n", None), ("50000 100000\n", 0.5)])
def test_v2_cpu_max(tmp_path: Path, cpu_max: str, quota: float | None) -> None:
    write(tmp_path, {"cgroup.controllers": "cpu memory\n", "pod/app/cpu.max": cpu_max, "pod/app/memory.max": "max\n"})
    box = read_box(tmp_path, proc_cgroup(tmp_path, "0::/pod/app\n"), affinity=range(4))
    assert box.quota_cpus == (pytest.approx(quota) if quota else None)
    assert box.quota_source == ("cgroup v2 cpu.max" if quota else None)
    assert box.memory_limit_bytes is None


def test_a_parent_tighter_than_the_child_binds(tmp_path: Path) -> None:
    write(tmp_path, {
        "cgroup.controllers": "cpu memory\n",
        "pod/cpu.max": "100000 100000\n", "pod/memory.max": f"{GIB}\n",
        "pod/app/cpu.max": "400000 100000\n", "pod/app/memory.max": f"{4 * GIB}\n",
    })
    box = read_box(tmp_path, proc_cgroup(tmp_path, "0::/pod/app\n"), affinity=range(8))
    assert (box.quota_cpus, box.memory_limit_bytes) == (pytest.approx(1.0), GIB)
    assert box.limited


def test_no_cgroup_files_means_no_limits(tmp_path: Path) -> None:
    box = read_box(tmp_path / "absent", tmp_path / "absent-proc-self-cgroup", affinity=[0, 2])
    assert box == Box(os.cpu_count() or 2, (0, 2), None, None, None)
    assert box.cpus == 2


def test_this_host() -> None:
    box = read_box()
    assert box.cpuset == tuple(sorted(os.sched_getaffinity(0)))
    assert box.host_cpus == os.cpu_count()
    assert box.cpus <= len(box.cpuset)


@pytest.fixture
def half_cpu_cgroup() -> Iterator[Path]:
    """A child cgroup allowed 0.5 CPU (its cgroup.procs file), removed afterwards; skips where this host says no."""
    root = Path("/sys/fs/cgroup")
    if os.geteuid() != 0:
        pytest.skip("making a cgroup needs root")
    if (root / "cgroup.controllers").exists():
        enabled = (root / "cgroup.subtree_control").read_text().split()
        if "cpu" not in enabled:
            pytest.skip("cgroup v2 without the cpu controller enabled for children of the root")
        child, limits = root / f"ov-tuner-test-{os.getpid()}", {"cpu.max": "50000 100000"}
    elif (root / "cpu" / "cpu.cfs_quota_us").exists() and os.access(root / "cpu", os.W_OK):
        child = root / "cpu" / f"ov-tuner-test-{os.getpid()}"
        limits = {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "50000"}
    else:
        pytest.skip("no writable cgroup v1 cpu mount or cgroup v2 hierarchy at /sys/fs/cgroup")
    try:
        child.mkdir()
    except OSError as e:
        pytest.skip(f"cannot make a cgroup here: {e}")
    try:
        write(child, limits)
        yield child / "cgroup.procs"
    finally:
        child.rmdir()


def test_a_real_child_cgroup_with_half_a_cpu(half_cpu_cgroup: Path) -> None:
    # The child waits on stdin until it has been moved into the cgroup, then reads its own box.
    script = "import sys; sys.stdin.readline(); from ov_tuner.devices.box import read_box; print(read_box().quota_cpus)"
    child = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        half_cpu_cgroup.write_text(str(child.pid))
        out, _ = child.communicate("\n", timeout=10)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == 0
    assert float(out) == pytest.approx(0.5)
