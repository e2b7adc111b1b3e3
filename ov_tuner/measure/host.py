"""What else the host was doing while a window ran: other processes' CPU, steal, our own CPU, the clock.

Why: on a shared machine the same point can differ by 30-40% between windows. Reading the host's own
accounting at every window boundary turns "this point was noisy" into "this window ran while other
processes used 45% of the CPUs", so such windows can be set aside instead of averaged in.

Sources: /proc/stat (jiffies of all CPUs, steal included), getrusage (this process, every thread:
OpenVINO's too), and cpufreq or /proc/cpuinfo for the clock. Where the OS exposes none of it (not
Linux), the figures are None and nothing is flagged.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass
from pathlib import Path

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_CPUFREQ = Path("/sys/devices/system/cpu")
# The shortest stretch whose CPU shares mean something: /proc/stat counts in ticks of 1 / SC_CLK_TCK s (10 ms).
MIN_LOOK_S = 0.2


@dataclass(frozen=True)
class HostSample:
    """Cumulative counters at one instant; only differences between two samples mean anything."""

    t_ns: int
    busy_s: float | None  # CPU seconds all CPUs spent running anything (user, nice, system, irq, softirq)
    steal_s: float | None  # CPU seconds the hypervisor gave to other guests
    capacity_s: float | None  # CPU seconds of all CPUs together, idle and steal included
    own_cpu_s: float  # this process, every thread
    cpu_mhz: float | None  # mean current clock over the CPUs


@dataclass(frozen=True)
class HostLoad:
    """What the host did between two samples, as shares of all CPUs' time."""

    foreign_cpu: float | None  # other processes
    steal: float | None
    own_cpu_s: float
    cpu_mhz: float | None


def sample() -> HostSample:
    busy = steal = capacity = None
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
        # user nice system idle iowait irq softirq steal (guest time is already counted in user)
        user, nice, system, idle, iowait, irq, softirq, stolen = (fields + [0] * 8)[:8]
        busy = (user + nice + system + irq + softirq) / _CLOCK_TICKS
        steal = stolen / _CLOCK_TICKS
        capacity = (user + nice + system + idle + iowait + irq + softirq + stolen) / _CLOCK_TICKS
    except (OSError, ValueError):
        pass
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return HostSample(time.perf_counter_ns(), busy, steal, capacity, usage.ru_utime + usage.ru_stime, _cpu_mhz())


def load_between(a: HostSample, b: HostSample) -> HostLoad:
    """What the host did between two samples; no shares for less than MIN_LOOK_S, which ticks cannot resolve."""
    own = max(0.0, b.own_cpu_s - a.own_cpu_s)
    mhz = _mean(a.cpu_mhz, b.cpu_mhz)
    if a.capacity_s is None or b.capacity_s is None or (b.t_ns - a.t_ns) / 1e9 < MIN_LOOK_S:
        return HostLoad(None, None, own, mhz)
    assert a.busy_s is not None and b.busy_s is not None and a.steal_s is not None and b.steal_s is not None
    capacity = b.capacity_s - a.capacity_s
    # The kernel's jiffies and getrusage tick differently: clamp the small negative differences that leaves.
    foreign = max(0.0, (b.busy_s - a.busy_s) - own) / capacity
    return HostLoad(min(foreign, 1.0), (b.steal_s - a.steal_s) / capacity, own, mhz)


def _mean(a: float | None, b: float | None) -> float | None:
    values = [v for v in (a, b) if v is not None]
    return sum(values) / len(values) if values else None


def _cpu_mhz() -> float | None:
    """The CPUs' current clock: cpufreq where the kernel has it, else /proc/cpuinfo (nominal on many VMs)."""
    try:
        khz = [int(p.read_text()) for p in _CPUFREQ.glob("cpu[0-9]*/cpufreq/scaling_cur_freq")]
        if khz:
            return sum(khz) / len(khz) / 1000
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            mhz = [float(line.split(":")[1]) for line in f if line.startswith("cpu MHz")]
        return sum(mhz) / len(mhz) if mhz else None
    except (OSError, ValueError):
        return None


def foreign_load_since(start: HostSample) -> float | None:
    """Other processes' share of all CPUs since `start` (at least MIN_LOOK_S: the rest is waited out), or None."""
    waited = (time.perf_counter_ns() - start.t_ns) / 1e9
    if waited < MIN_LOOK_S:
        time.sleep(MIN_LOOK_S - waited)
    return load_between(start, sample()).foreign_cpu
