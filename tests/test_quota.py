"""cpu_quota: a real half-CPU quota where this host lets a test make one (the kernel throttles every thread, and
nothing is left behind, also after Ctrl-C), its one-line refusals on fake cgroup trees, and requests it refuses."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ov_tuner.devices.box import parse_proc_cgroup
from ov_tuner.devices.quota import QuotaUnavailable, cpu_quota
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
    with cpu_quota(0.5) as box:
        print(box.quota_cpus, read_box().quota_cpus)
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
    quotas, times, moved_back = done.stdout.splitlines()
    yielded, read_inside = map(float, quotas.split())
    cpu_s, wall_s = map(float, times.split())
    print(f"quota read back {read_inside}, CPU {cpu_s:.3f} s / wall {wall_s:.3f} s = {cpu_s / wall_s:.3f}")
    assert yielded == read_inside == pytest.approx(0.5)
    assert cpu_s / wall_s <= 0.5 * THROTTLE_SLACK
    assert moved_back == "True"
    assert list(own_cpu_cgroup().glob("ov-tuner-*")) == []


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
