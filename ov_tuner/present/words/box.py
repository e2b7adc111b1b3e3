"""Words for the box a process ran in: how much of the host it could use."""

from __future__ import annotations

from ov_tuner.schema import Box


def cpu_list(cpus: tuple[int, ...]) -> str:
    """'0-3,8,10-11': the form cgroups and taskset write a CPU list in."""
    runs: list[list[int]] = []
    for cpu in cpus:
        if runs and cpu == runs[-1][-1] + 1:
            runs[-1].append(cpu)
        else:
            runs.append([cpu])
    return ",".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


def box_text(box: Box | None) -> str:
    """'1 CPU of 2 under a cgroup quota (cgroup v1 cpu.cfs_quota_us); cpuset 0-1; memory limit 4.0 GiB', or
    'all 2 CPUs: no quota; cpuset 0-1'."""
    if box is None:
        return "not recorded (a results file from before ov-tuner read it)"
    if box.quota_cpus is not None:
        head = (f"{box.quota_cpus:g} CPU{'s' if box.quota_cpus != 1 else ''} of {box.host_cpus} under a cgroup quota "
                f"({box.quota_source})")
    elif len(box.cpuset) < box.host_cpus:
        head = f"{len(box.cpuset)} CPUs of {box.host_cpus}: no quota"
    else:
        head = f"all {box.host_cpus} CPUs: no quota"
    memory = (f"; memory limit {box.memory_limit_bytes / 2**30:.1f} GiB" if box.memory_limit_bytes is not None
              else "")
    return f"{head}; cpuset {cpu_list(box.cpuset)}{memory}"


def box_line(box: Box, foreign_cpu: float | None) -> str:
    """'box: 1 CPU of 2 under a cgroup quota (...); cpuset 0-1; other processes used 3% of the CPUs meanwhile'."""
    busy = f"; other processes used {foreign_cpu:.0%} of the CPUs meanwhile" if foreign_cpu is not None else ""
    return f"box: {box_text(box)}{busy}"
