"""cpu_quota: a real half-CPU quota where this host lets a test make one (the kernel throttles every thread, and
nothing is left behind, also after Ctrl-C), what a killed run left removed at the next start, its one-line refusals
on fake cgroup trees, and requests it refuses."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ov_tuner.devices.box import parse_proc_cgroup
from ov_tuner.devices.quota import PREFIX, QuotaUnavailable, cpu_quota
from ov_tuner.errors import BadInputError

CGROUP = Path("/sys/fs/cgroup")
THROTTLE_SLACK = 1.3  # CPU time over wall time may exceed the quota by this factor (a period's edges)

# A thread hashing 16 MiB at a time (hashlib releases the GIL) started before the quota, and a busy Python loop:
# unthrottled they used 1.6 CPUs on a 2-CPU host, under 0.5 CPU both get 0.5. Then a Ctrl-C inside a second quota.
SCRIPT = """
import hashlib, threading, time
from ov_tuner.devices.box import read_box
from ov_tuner.devices.quota import QuotaUnavailable, cpu_quota
before, stop, data = open("/proc/self/cgroup").read(), threading.Event(), bytes(1 << 24)
def hash_until_stopped():
    while not stop.is_set():
        hashlib.sha256(data).digest()
hasher = threading.Thread(target=hash_until_stopped)
hasher.start()
try:
    with cpu_quota(0.5) as quota:
        print(quota.cgroup)
        print(quota.box.quota_cpus, read_box().quota_cpus)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        while time.perf_counter() - wall0 < 1.0:
            pass
        print(time.process_time() - cpu0, time.perf_counter() - wall0)
except QuotaUnavailable as e:
    print("unavailable:", e)
    raise SystemExit(3)
finally:
    stop.set()
    hasher.join()
try:
    with cpu_quota(0.5):
        raise KeyboardInterrupt
except KeyboardInterrupt:
    pass
print(open("/proc/self/cgroup").read() == before)
"""

# A run that enters its quota, says where, and waits there to be killed.
ENTERED = """
import time
from ov_tuner.devices.quota import QuotaUnavailable, cpu_quota
try:
    with cpu_quota(1) as quota:
        print(quota.cgroup, flush=True)
        time.sleep(60)
except QuotaUnavailable as e:
    print("unavailable:", e, flush=True)
"""


def own_cpu_cgroup() -> Path:
    """The cpu cgroup this test process (and so its child) runs in, where cpu_quota makes its children."""
    paths = parse_proc_cgroup(Path("/proc/self/cgroup").read_text())
    if (CGROUP / "cgroup.controllers").exists():
        return CGROUP / paths.get("", "/").lstrip("/")
    return CGROUP / "cpu" / paths.get("cpu", "/").lstrip("/")


def test_a_real_half_cpu_quota_throttles_every_thread_and_leaves_nothing_behind() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=30)
    if done.returncode == 3:
        pytest.skip(done.stdout.strip())
    assert done.returncode == 0, done.stderr
    cgroup, quotas, times, moved_back = done.stdout.splitlines()
    yielded, read_inside = map(float, quotas.split())
    cpu_s, wall_s = map(float, times.split())
    print(f"quota read back {read_inside}, CPU {cpu_s:.3f} s / wall {wall_s:.3f} s = {cpu_s / wall_s:.3f}")
    assert yielded == read_inside == pytest.approx(0.5)
    assert cpu_s / wall_s <= 0.5 * THROTTLE_SLACK
    assert moved_back == "True"
    assert Path(cgroup).parent == own_cpu_cgroup()
    assert not Path(cgroup).exists()


def test_the_cgroup_of_a_run_killed_outright_goes_at_the_next_start() -> None:
    """SIGKILL leaves a run no way out: the next start removes its cgroup, even before the killed one is reaped."""
    killed = subprocess.Popen([sys.executable, "-c", ENTERED], stdout=subprocess.PIPE, text=True)
    try:
        assert killed.stdout is not None
        entered = killed.stdout.readline().strip()
        if entered.startswith("unavailable:"):
            pytest.skip(entered)
        left = Path(entered)
        assert left.name == f"{PREFIX}{killed.pid}"
        killed.kill()
        deadline = time.monotonic() + 10
        while (left / "cgroup.procs").read_text() and time.monotonic() < deadline:
            time.sleep(0.01)  # the kernel takes the dying process out of its cgroup
        with cpu_quota(1) as quota:
            assert left in quota.removed and not left.exists()
    finally:
        killed.kill()
        killed.wait()
    assert not quota.cgroup.exists()


@pytest.fixture
def beside_quota() -> Iterator[tuple[Path, Path]]:
    """An empty cgroup named as a killed run's would be, and one that holds a live process, beside where cpu_quota
    makes its child (skips where this host will not let a test make them); both gone after the test."""
    parent, tag = own_cpu_cgroup(), uuid.uuid4().hex[:8]
    left, busy = parent / f"{PREFIX}killed-{tag}", parent / f"{PREFIX}busy-{tag}"
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        for cgroup in (left, busy):
            cgroup.mkdir()
        (busy / "cgroup.procs").write_text(str(sleeper.pid))
    except OSError as e:
        sleeper.kill()
        sleeper.wait()
        for cgroup in (left, busy):
            if cgroup.exists():
                cgroup.rmdir()
        pytest.skip(f"cannot make a cgroup and move a process into it under {parent}: {e.strerror}")
    yield left, busy
    sleeper.kill()
    sleeper.wait()  # a reaped process is out of its cgroup, which can go
    for cgroup in (left, busy):
        if cgroup.exists():
            cgroup.rmdir()


def test_the_next_quota_removes_what_a_killed_run_left_and_not_a_cgroup_in_use(
    beside_quota: tuple[Path, Path]
) -> None:
    left, busy = beside_quota
    try:
        with cpu_quota(min(1.0, len(os.sched_getaffinity(0)))) as quota:
            assert quota.cgroup.is_dir()
    except QuotaUnavailable as e:
        pytest.skip(str(e))
    assert quota.cgroup.name == f"{PREFIX}{os.getpid()}"
    assert left in quota.removed and not left.exists()
    assert busy not in quota.removed and busy.is_dir()
    assert not quota.cgroup.exists()


def test_a_leftover_is_removed_only_once_no_process_is_in_it_or_named_by_it(tmp_path: Path) -> None:
    """A fake v1 tree where this process's own child already holds a process: the start refuses in one line, after
    removing the empty leftover of a dead pid; the empty child of a live pid (between making it and entering it) and
    a child that holds a process stay."""
    cpu = tmp_path / "cgroup" / "cpu"
    dead, live, own = (cpu / f"{PREFIX}{pid}" for pid in (2**22 + 1, os.getppid(), os.getpid()))
    for cgroup in (dead, live, own):
        cgroup.mkdir(parents=True)
    (cpu / "cpu.cfs_quota_us").write_text("-1\n")
    (cpu / "cpu.cfs_period_us").write_text("100000\n")
    (own / "cgroup.procs").write_text(f"{os.getpid()}\n")
    (tmp_path / "proc-self-cgroup").write_text("1:cpu:/\n")
    with pytest.raises(QuotaUnavailable) as refused, \
            cpu_quota(1, root=tmp_path / "cgroup", proc_self_cgroup=tmp_path / "proc-self-cgroup"):
        pytest.fail("entered a quota whose cgroup another process holds")
    assert "\n" not in str(refused.value) and "holds processes" in str(refused.value)
    assert not dead.exists() and live.is_dir() and own.is_dir()


@pytest.mark.parametrize(("files", "proc_cgroup", "why"), [
    ({}, "1:cpu:/\n", "no cgroup v1 cpu controller"),
    ({"cgroup.controllers": "memory pids\n"}, "0::/\n", "without the cpu controller delegated"),
    ({"cgroup.controllers": "cpu memory\n", "pod/cgroup.controllers": "cpu\n"}, "0::/pod\n", "holds processes"),
])
def test_a_host_that_will_not_allow_a_quota_says_why_in_one_line(
    tmp_path: Path, files: dict[str, str], proc_cgroup: str, why: str
) -> None:
    root = tmp_path / "cgroup"
    for name, text in {"README": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (tmp_path / "proc-self-cgroup").write_text(proc_cgroup)
    before = sorted(root.rglob("*"))
    with pytest.raises(QuotaUnavailable) as refused, \
            cpu_quota(1, root=root, proc_self_cgroup=tmp_path / "proc-self-cgroup"):
        pytest.fail("entered a quota on a host that has no cpu controller to give one")
    message = str(refused.value)
    assert "\n" not in message
    assert why in message
    assert "docker run --cpus 1 " in message
    assert sorted(root.rglob("*")) == before


@pytest.mark.parametrize("cpus", [0, -1, math.nan, math.inf, len(os.sched_getaffinity(0)) + 1, 0.001])
def test_a_quota_that_is_impossible_or_limits_nothing_is_refused(tmp_path: Path, cpus: float) -> None:
    with pytest.raises(BadInputError) as refused, cpu_quota(cpus, root=tmp_path, proc_self_cgroup=tmp_path / "x"):
        pytest.fail("entered an impossible quota")
    assert "\n" not in str(refused.value)
    assert list(tmp_path.iterdir()) == []
