"""The sweep's parts' results as document blocks: cameras served, soaks, cold starts, per-layer profiles."""

from __future__ import annotations

from collections.abc import Sequence

from ov_tuner.analyse.capacity import Served
from ov_tuner.present.document import Table, table
from ov_tuner.schema import ColdStart, LoadTrial, Profile
from ov_tuner.workloads.sweep.present.words.edge import harness_cell, latency_text

COLDSTART_FIGURES = (
    ("read_ms", "read the model"),
    ("compile_ms", "compile, no cache"),
    ("first_infer_ms", "first inference"),
    ("steady_median_ms", "steady median after warm-up"),
    ("cache_write_compile_ms", "compile, writing CACHE_DIR"),
    ("cache_compile_ms", "compile from CACHE_DIR"),
    ("cache_first_infer_ms", "first inference after a cached compile"),
)


def capacity_table(served: Sequence[Served]) -> Table:
    """Per configuration and target (the latest run of each, ov_tuner.analyse.capacity.latest_served): cameras served
    and the trial that shows it."""
    rows = []
    for s in served:
        t, trial = s.run.target, s.trial
        cameras = (f"{s.cameras}{'' if s.finished else '+'} (95%: {s.low}..{s.high})" if s.run.searched
                   else f"{s.cameras} (given)")
        rows.append([s.run.config.label(), f"{t.fps:g} FPS, p{t.percentile:g} <= {t.max_latency_ms:g} ms, "
                     f"{t.arrival.value}", cameras, latency_text(s), _percentiles(trial),
                     f"{trial.achieved_fps:.1f}" if trial else "-", str(trial.dropped) if trial else "-",
                     str(trial.late(t.max_latency_ms)) if trial else "-", str(len(s.run.trials)),
                     harness_cell(s)])
    return table(("configuration", "target", "cameras", "latency", "completed frames p50 / p90 / p99 ms",
                  "completed FPS", "dropped", "late", "trials", "of the harness's ceiling"), rows,
                 "Cameras served (latency counted from each frame's arrival)",
                 ("cameras", "completed FPS", "dropped", "late", "trials"))


def _percentiles(trial: LoadTrial | None) -> str:
    stats = trial.latency if trial else None
    return f"{stats.median:.1f} / {stats.p90:.1f} / {stats.p99:.1f}" if stats else "-"


def coldstart_table(cold: ColdStart) -> Table:
    k = cold.key
    rows = [[label, *(f"{v:.2f}" for v in cold.stat(name))] for name, label in COLDSTART_FIGURES]
    return table(("figure", "median ms", "min ms", "max ms"), rows,
                 f"Cold start: {k.device} {k.precision.value} batch {k.batch}, {k.streams} streams "
                 f"({len(cold.samples)} fresh processes each)", ("median ms", "min ms", "max ms"))


def profile_tables(profile: Profile, top: int) -> tuple[Table, Table]:
    """Time by layer type, and the `top` layers with the kernel each ran."""
    c = profile.config
    head = f"{c.device} {c.precision.value} batch {c.batch}, {c.streams} streams x {c.nireq} requests"
    by_type = table(("layer type", "share", "cumulative", "calls", "mean ms", "exec types (kernels)"),
                    [[r.layer_type, f"{r.share:.1%}", f"{r.cumulative_share:.1%}", str(r.calls), f"{r.mean_ms:.4f}",
                      ", ".join(r.exec_types)] for r in profile.by_type()],
                    f"Time by layer type: {head}; {profile.inferences} inferences, layers "
                    f"{profile.layer_ms_per_inference:.3f} ms of a {profile.mean_request_ms:.3f} ms request",
                    ("share", "cumulative", "calls", "mean ms"))
    layers = table(("layer", "type", "exec type", "share", "cumulative", "calls", "mean ms"),
                   [[layer.name, layer.layer_type, layer.exec_type, f"{share:.1%}", f"{cumulative:.1%}",
                     str(layer.calls), f"{layer.mean_ms:.4f}"] for layer, share, cumulative in profile.top_layers(top)],
                   f"Top {top} layers", ("share", "cumulative", "calls", "mean ms"))
    return by_type, layers
