"""Words for what a sweep reports as it goes (its notices), what `--precision auto` chose, and how a --device value
was read."""

from __future__ import annotations

from ov_tuner.present.words.box import box_text
from ov_tuner.present.words.devices import merged_text, quantizing_text
from ov_tuner.workloads.sweep.notices import (
    CgroupsRemoved,
    ComparingOutputs,
    Confirming,
    HostBusy,
    InBox,
    Notice,
    OutputsNotCompared,
    PrecisionMerged,
    PrecisionsChosen,
    PrecisionSkipped,
    QuantizationFailed,
    Quantized,
    Quantizing,
    Resuming,
)
from ov_tuner.workloads.sweep.present.words.quantization import quantization_lines
from ov_tuner.workloads.sweep.summary import FIXED_GRID_S, SweepSummary


def box_notice_text(notice: InBox) -> str:
    """'box: 1 CPU of 2 under a cgroup quota (...), set up for this sweep (--cpus 1); cpuset 0-1: INFERENCE_NUM_THREADS
    1 joins the search ...'."""
    box = notice.box
    text = f"box: {box_text(box)}"
    if notice.quota_set:
        text += "; ov-tuner set that quota up for this sweep (--cpus)"
    if notice.threads:
        text += (f"; INFERENCE_NUM_THREADS {', '.join(notice.threads)} joins the search and 'auto' streams stop at "
                 "the threads; OpenVINO default chooses as it would")
    return text


def cgroups_removed_text(notice: CgroupsRemoved) -> str:
    """'removed 1 empty cgroup that a killed ov-tuner run left behind: /sys/fs/cgroup/cpu/ov-tuner-4242'."""
    count = len(notice.cgroups)
    which = "cgroup that a killed ov-tuner run" if count == 1 else "cgroups that killed ov-tuner runs"
    return f"removed {count} empty {which} left behind: {', '.join(map(str, notice.cgroups))}"


def notice_text(notice: Notice) -> str:
    """One line for what a sweep reports as it goes."""
    if isinstance(notice, InBox):
        return box_notice_text(notice)
    if isinstance(notice, CgroupsRemoved):
        return cgroups_removed_text(notice)
    if isinstance(notice, PrecisionSkipped):
        p = notice.precision.value
        return (f"{notice.device} {p}: its first compile failed ({notice.error}); the rest of {p} on {notice.device} "
                "is skipped: sweep without it (--precision) or fix the cause; --verbose shows OpenVINO's whole message")
    if isinstance(notice, PrecisionsChosen):
        swept = ", ".join(p.value for p in notice.swept)
        merged = merged_text(notice.merged)
        return f"--precision auto on {notice.device}: {swept}" + (f"; {merged}" if merged else "")
    if isinstance(notice, PrecisionMerged):
        return merged_text([notice.merged])
    if isinstance(notice, Quantizing):
        return quantizing_text(notice.images)
    if isinstance(notice, Quantized):
        return "\n".join(quantization_lines(notice.record))
    if isinstance(notice, QuantizationFailed):
        return f"int8 left out: {notice.why}"
    if isinstance(notice, ComparingOutputs):
        return (f"comparing outputs with the FP32 reference (CPU, f32) on {notice.inputs} "
                f"{'images' if notice.images else 'inputs'} at batch {notice.batch}")
    if isinstance(notice, OutputsNotCompared):
        return f"{notice.device} {notice.precision.value}: outputs not compared: {notice.why}"
    if isinstance(notice, Confirming):
        return f"confirming {notice.configurations} configurations head to head"
    if isinstance(notice, HostBusy):
        return (f"the host is already busy: other processes used {notice.foreign_cpu:.0%} of the CPUs while the model "
                "was prepared; windows measured while that lasts are flagged and set aside")
    assert isinstance(notice, Resuming)
    return f"resuming: {notice.points} points already measured are kept"


def summary_lines(summary: SweepSummary) -> list[str]:
    """What a sweep did, and what the same spaces would have cost as a fixed-time grid."""
    early = []
    if summary.outpaced:
        early.append(f"{summary.outpaced} stopped early, outpaced by a better one")
    if summary.decided:
        early.append(f"{summary.decided} stopped once the search had its answer")
    left = f", {summary.left_out} left out (by smart search or with a skipped precision)" if summary.left_out else ""
    lines = [f"{summary.measured} points measured{' (' + '; '.join(early) + ')' if early else ''}, {summary.failed} "
             f"failed, {summary.skipped} already stored{left}; {summary.compiles} compiles; results in {summary.out}"]
    points = summary.grid_size
    if summary.measured:
        lines.append(f"the search took {summary.search_s:.0f} s for {summary.measured} of {points} points; a "
                     f"fixed-time grid of all {points} (--search grid --seconds {FIXED_GRID_S:g}) would take at least "
                     f"{summary.fixed_grid_s:.0f} s")
    if summary.confirmed and summary.fixed_grid_s:
        wall = summary.search_s + summary.confirm_s
        lines.append(f"the confirmation round measured {summary.confirmed} configurations head to head in "
                     f"{summary.confirm_s:.0f} s ({summary.confirm_s / wall:.0%} of the sweep's {wall:.0f} s; search "
                     f"and round {wall / summary.fixed_grid_s:.0%} of that grid)")
    return lines
