"""Words for the edge commands: cameras served under open-loop load, each trial, soaks and their drift, cold starts."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ov_tuner.analyse.capacity import Served
from ov_tuner.analyse.drift import DRIFT_MIN, MIN_SIDE, NOISE_FACTOR, Drift, SoakDrift
from ov_tuner.present.words.numbers import ms_text, signed
from ov_tuner.schema import CameraTarget, Capacity, ColdStart, LoadTrial, SoakWindow


def latency_text(s: Served) -> str:
    """'p99 41 ms' of the trial that shows what a configuration serves."""
    t = s.run.target
    if s.trial is None:
        return "no trial"
    return f"p{t.percentile:g} {ms_text(s.trial.percentile_ms(t.percentile))}"


def _budget(run: Capacity) -> str:
    return f"p{run.target.percentile:g} <= {run.target.max_latency_ms:g} ms, a dropped frame counting as late"


def served_text(s: Served) -> str:
    """'CPU fp32 batch 1 2 streams x 4 requests serves 7 cameras at 30 FPS with p99 13 ms (within ...)'."""
    run, t = s.run, s.run.target
    head = run.config.label()
    if not run.searched:
        if s.trial is None:
            return f"{head}: not measured"
        verdict = "serves them" if s.serves else "does not serve them"
        return (f"{head} with {s.trial.cameras} cameras at {t.fps:g} FPS: {latency_text(s)}, "
                f"{s.trial.achieved_fps:.1f} FPS completed, {s.trial.dropped} dropped, "
                f"{s.trial.late(t.max_latency_ms)} late: {verdict}")
    if s.cameras == 0:
        return f"{head} serves no camera at {t.fps:g} FPS within {_budget(run)} ({len(run.trials)} trials)"
    bound = "" if s.finished else " at least (the search was stopped)"
    return (f"{head} serves {s.cameras} cameras{bound} ({cameras_interval_text(s)}) at {t.fps:g} FPS with "
            f"{latency_text(s)} (within {_budget(run)}){_limited(s)}")


def _limited(s: Served) -> str:
    """'; limited by ov-tuner's load harness at 1200 frames/s ...' where the harness, not the device, may have set the
    figure, else ''."""
    if not s.harness_limited or s.run.harness is None:
        return ""
    return (f"; limited by ov-tuner's load harness at {s.run.harness.frames_per_s:.0f} frames/s (it carried that "
            f"with the model made trivial, and the cameras served offer {s.frames_per_s:.0f}): the device may serve "
            "more")


def harness_cell(s: Served) -> str:
    """'2% of 15400 frames/s': the frames a second served against what the load harness carries with the model made
    trivial ('15400 or more' where it never fell behind), '-' where that was not measured."""
    carried, share = s.run.harness, s.harness_share
    if carried is None or share is None:
        return "-"
    more = "" if carried.reached else " or more"
    return f"{share:.0%} of {carried.frames_per_s:.0f}{more} frames/s"


def cameras_interval_text(s: Served) -> str:
    """'95%: 6..8, 14 trials' (never zero-wide: the interval carries a rerun's spread)."""
    return f"95%: {s.low}..{s.high}, {len(s.run.trials)} trials"


def capacity_summary(served: Sequence[Served]) -> str | None:
    """The camera searches in one sentence, most cameras first (`served`, as analyse.capacity.latest_served orders
    them): "CPU fp32 batch 1 2 streams x 4 requests serves 11 cameras at 30 FPS with p99 41 ms (within ...); 1 x 2
    serves 6"."""
    searched = [s for s in served if s.run.searched]
    if not searched:
        return None
    first, *rest = searched

    def short(s: Served) -> str:
        c, f = s.run.config, first.run.config
        same = (c.scope, c.precision, c.batch) == (f.scope, f.precision, f.batch)
        return c.short_label(c.streams, c.nireq) if same else c.label()

    return "; ".join([served_text(first), *(f"{short(s)} serves {s.cameras} ({s.low}..{s.high})" for s in rest)])


def trial_line(trial: LoadTrial, target: CameraTarget) -> str:
    """'4 cameras: 120 frames/s offered, 119.8 completed, p99 35 ms, 0 dropped, 2 late: serves'."""
    verdict = "serves" if trial.serves(target) else "does not serve"
    if trial.disturbed:
        verdict += (f" (other processes used {trial.foreign_cpu or 0:.0%} of the CPUs, the hypervisor "
                    f"{trial.steal or 0:.0%}: a failure then is tried again)")
    median = float(np.median(trial.service_ms)) if trial.service_ms.size else float("nan")
    return (f"{trial.cameras} cameras: {trial.offered / trial.seconds:.0f} frames/s offered, "
            f"{trial.achieved_fps:.1f} completed, p{target.percentile:g} "
            f"{ms_text(trial.percentile_ms(target.percentile))} (the request itself: median {median:.1f} ms), "
            f"{trial.dropped} dropped, {trial.late(target.max_latency_ms)} late: {verdict}")


def soak_window_line(w: SoakWindow) -> str:
    """' 2.5 min: 239.0 FPS, p99 20.2 ms, CPU 2.25 GHz, other processes 3%'."""
    clock = f", CPU {w.window.cpu_mhz / 1000:.2f} GHz" if w.window.cpu_mhz else ""
    load = f", other processes {w.window.foreign_cpu:.0%}" if w.window.foreign_cpu is not None else ""
    return f"{w.start_s / 60:5.1f} min: {w.window.fps:.1f} FPS, p99 {w.percentile_ms(99):.1f} ms{clock}{load}"


def drift_text(d: Drift) -> str:
    """Whether FPS held along a soak, or fell or rose after a step, with the clock and the host's load beside."""
    if not d.drifted:
        return (f"FPS held over {d.minutes:.1f} min: {d.before.fps:.1f} FPS before the largest step and "
                f"{d.after.fps:.1f} after ({signed(d.change, percent=True)}, within the windows' {d.noise:.1%} noise "
                f"x {NOISE_FACTOR:g} or under {DRIFT_MIN:.0%}); p99 {d.before.p99_ms:.1f} -> {d.after.p99_ms:.1f} "
                f"ms{_clock(d)}")
    verb = "fell" if d.change < 0 else "rose"
    return (f"FPS {verb} {abs(d.change):.0%} after {d.at_s / 60:.1f} min ({d.before.fps:.1f} -> {d.after.fps:.1f} "
            f"FPS, p99 {d.before.p99_ms:.1f} -> {d.after.p99_ms:.1f} ms){_clock(d)}{_load(d)}")


def _clock(d: Drift) -> str:
    b, a = d.before.cpu_mhz, d.after.cpu_mhz
    if b is None or a is None:
        return "; the CPU clock is not readable here"
    if d.clock_changed:
        return f" while the CPU clock {'fell' if a < b else 'rose'} from {b / 1000:.2f} to {a / 1000:.2f} GHz"
    return f" while the CPU clock held at {b / 1000:.2f} GHz"


def _load(d: Drift) -> str:
    b, a = d.before.foreign_cpu, d.after.foreign_cpu
    if not d.load_changed or b is None or a is None:
        return "" if d.clock_changed else "; other processes' load held too: look for a limit the OS hides"
    return f"; other processes used {a:.0%} of the CPUs after it, {b:.0%} before: the host's load, not the device"


def soak_lines(found: SoakDrift) -> list[str]:
    """What the soak found: its length and the drift sentence."""
    soak = found.soak
    head = f"soak of {soak.config.label()}: {len(soak.windows)} windows of {soak.window_s:g} s"
    return [head, drift_text(found.drift) if found.drift
            else f"too few windows to tell drift ({2 * MIN_SIDE} or more are needed)"]


def coldstart_text(cold: ColdStart) -> str:
    """Why the first inference is slow, in the figures the repeats agree on (medians)."""
    first, steady = cold.stat("first_infer_ms")[0], cold.stat("steady_median_ms")[0]
    compile_ms, cached = cold.stat("compile_ms")[0], cold.stat("cache_compile_ms")[0]
    return (f"the first inference takes {first:.2f} ms, {first / steady:.1f}x the steady median of {steady:.2f} ms; "
            f"before it, reading the model takes {cold.stat('read_ms')[0]:.1f} ms and compiling {compile_ms:.1f} ms, "
            f"or {cached:.1f} ms from a CACHE_DIR ({cached / compile_ms - 1:+.0%})")
