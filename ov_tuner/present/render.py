"""Rich tables and lines for the terminal: devices, points, best configurations, answers, diagnostics."""

from __future__ import annotations

import openvino as ov
from rich.markup import escape
from rich.table import Table

from ov_tuner.analyse.accuracy import precision_costs
from ov_tuner.analyse.baselines import baseline_gains, inconsistencies
from ov_tuner.analyse.compare import Comparison, matched_label
from ov_tuner.analyse.diagnostics import diagnostics, how_measured
from ov_tuner.analyse.hints import hint_effects
from ov_tuner.analyse.points import best_per_device_precision
from ov_tuner.analyse.precisions import precision_speeds, ran_by_scope
from ov_tuner.analyse.recommend import NothingMeetsBudget, Recommendation, recommend
from ov_tuner.analyse.saturation import saturation
from ov_tuner.analyse.virtual import virtual_comparisons
from ov_tuner.devices.decisions import auto_batched, auto_precisions
from ov_tuner.model.zoo import model_stats
from ov_tuner.present.formats import DeploySnippets
from ov_tuner.present.words import (
    gain_lines,
    hint_effect_text,
    inconsistency_text,
    merged_text,
    precision_cell,
    recommendation_text,
    round_label,
)
from ov_tuner.schema import ColdStart, Confirmation, DeviceInfo, Ending, Mode, PointResult, Profile
from ov_tuner.stats.headtohead import HeadToHead
from ov_tuner.store.results import StoredResults
from ov_tuner.sweep import SweepSummary


def devices_table(devices: list[DeviceInfo]) -> Table:
    """Each device with the properties that shape a sweep, and what `--precision auto` sweeps on it."""
    table = Table(title="OpenVINO devices on this machine")
    for column in ("device", "full name", "streams range", "optimal nireq", "capabilities", "default precision",
                   "--precision auto"):
        table.add_column(column)
    for d in devices:
        streams = f"{d.streams_range[0]}-{d.streams_range[1]}" if d.streams_range else "n/a"
        swept, merged = auto_precisions(d)
        auto = ", ".join(p.value for p in swept) + (f" ({merged_text(merged)})" if merged else "")
        table.add_row(d.name, d.full_name, streams, str(d.optimal_nireq or "n/a"), ", ".join(d.capabilities),
                      d.default_precision or "n/a", auto)
    return table


def ran(p: PointResult) -> str:
    """What ran, in the one wording of CompileInfo.ran: 'f32', 'bf16', 'f32 math, f16 weights'."""
    return p.compile.ran if p.compile is not None else "-"


def _streams(p: PointResult) -> str:
    """Streams asked and, where the device chose or changed them, what ran; a virtual device's hint with its requests
    ('CUMULATIVE_THROUGHPUT, 4 requests')."""
    if p.config.mode is not Mode.EXPLICIT:
        if p.config.explicit:
            return p.config.short_label(p.streams, p.nireq)
        if p.compile is None:
            return p.config.mode.hint_name
        batched = " (auto-batched)" if auto_batched(p.compile.read_back) else ""
        return f"{p.config.mode.hint_name}: {p.streams}{batched}"
    return str(p.config.streams) if p.streams == p.config.streams else f"{p.config.streams}->{p.streams}"


def points_table(results: StoredResults) -> Table:
    env = results.environment
    table = Table(title=f"{env.model_name}: every point (OpenVINO {env.ov_version.split('-')[0]}, {env.cpu_model})")
    for column in ("device", "prec", "ran", "batch", "streams", "nireq", "FPS", "FPS 95% CI", "ended", "median ms",
                   "p90 ms", "p99 ms", "FPS CV", "CPU ms/req", "1st inf. ms"):
        table.add_column(column, justify="left" if column in ("device", "prec", "ran", "streams", "ended") else "right")
    for p in results.points:
        c = p.config
        head = [c.device, c.precision.value, ran(p), str(c.batch), _streams(p), str(p.nireq)]
        if not p.ok:
            table.add_row(*head, "[red]failed[/red]", *[""] * 8)
            continue
        assert p.measurement is not None
        m, lat = p.measurement, p.measurement.latency
        ended = {Ending.CAPPED: "[yellow]unsettled[/yellow]"}.get(m.ended, m.ended.value)
        if m.disturbed_windows:
            ended += f" [yellow]({m.disturbed_windows} disturbed)[/yellow]"
        table.add_row(*head, f"{m.fps:.1f}", f"{m.fps_ci95[0]:.1f}-{m.fps_ci95[1]:.1f}" if m.fps_ci95 else "-", ended,
                      f"{lat.median:.3f}", f"{lat.p90:.3f}", f"{lat.p99:.3f}",
                      f"{m.fps_cv:.1%}" if m.fps_cv is not None else "-",
                      f"{m.cpu_ms_per_request:.2f}" if m.cpu_ms_per_request is not None else "-",
                      f"{p.compile.first_infer_ms:.2f}" if p.compile else "-")
    return table


def best_table(results: StoredResults) -> Table:
    table = Table(title="Best throughput per device and precision, as the search measured it")
    for column in ("device", "precision", "ran", "batch", "streams", "nireq", "FPS", "median ms", "p90 ms",
                   "vs OpenVINO hints"):
        table.add_column(column)
    faster_hints = {id(i.best): i for i in inconsistencies(results.points)}
    for best in best_per_device_precision(results.points):
        p = best.point
        gains = ", ".join(f"{g.fps_gain:+.0%} vs {g.baseline.config.mode.hint_name}"
                          for g in baseline_gains(p, results.points)) or "-"
        if id(p) in faster_hints:
            gains += f" [red]({faster_hints[id(p)].baseline.config.mode.hint_name} is faster beyond noise)[/red]"
        table.add_row(p.config.scope, best.precision.value, ran(p), str(p.config.batch), _streams(p),
                      str(p.config.nireq), f"[bold]{best.fps:.1f}[/bold]", f"{p.latency_ms(50):.3f}",
                      f"{p.latency_ms(90):.3f}", gains)
    return table


def headtohead_tables(results: StoredResults) -> list[Table]:
    """Per device, its latest confirmation round: every contender's FPS and p90 over the interleaved passes and
    its ratio to the leader with a 95% interval."""
    tables = []
    for confirmation in latest_confirmations(results.confirmations):
        head = HeadToHead.of(confirmation)
        if head is None:
            continue
        leader = max(head.figures, key=lambda f: f.fps)
        table = Table(title=f"Head to head: the leader and every contender over {leader.windows} interleaved passes "
                            f"of {confirmation.window_s:g} s windows")
        for column in ("device", "precision", "batch", "configuration", "FPS", "p90 ms", "vs the leader (95%)"):
            table.add_column(column, justify="right" if column in ("FPS", "p90 ms") else "left")
        for f in sorted(head.figures, key=lambda f: -f.fps):
            c = f.contender.config
            versus = "leader" if f is leader else head.ratio(f.contender, leader.contender).as_gain()
            table.add_row(c.scope, precision_cell(f), str(c.batch), round_label(f), f"{f.fps:.1f}",
                          f"{f.latency_ms(90):.3f}", versus)
        tables.append(table)
    return tables


def latest_confirmations(confirmations: list[Confirmation]) -> list[Confirmation]:
    """The most recent confirmation round: every device of a sweep meets in one."""
    return confirmations[-1:]


def saturation_lines(results: StoredResults) -> list[str]:
    return [s.reason for s in saturation(results.points, devices=results.devices)] + [
        f"[red]not the best:[/red] {inconsistency_text(i)}" for i in inconsistencies(results.points)]


def answer_lines(results: StoredResults) -> list[str]:
    """What the results answer, in words: the recommendation with its gains and precision ratios."""
    try:
        rec = recommend(results.points, confirmations=results.confirmations)
    except NothingMeetsBudget:
        return []
    word = "[bold green]answer:[/bold green]" if rec.confirmed else "[bold yellow]answer (not confirmed):[/bold yellow]"
    virtual = [f"virtual device: {v.reason}" for v in virtual_comparisons(results.points, results.devices,
                                                                          results.confirmations)]
    costs = precision_costs(results.accuracies, precision_speeds(results.points, results.confirmations),
                            ran_by_scope(results.points))
    return ([f"{word} {escape(recommendation_text(rec))}"] + [f"  {line}" for line in gain_lines(rec)] + virtual
            + [f"precision: {line}" for line in costs])


def diagnostics_lines(results: StoredResults) -> list[str]:
    effects = [e for c in latest_confirmations(results.confirmations) for e in hint_effects(c)]
    return ([how_measured(results.points)]
            + [f"[yellow]{d.kind.value}[/yellow]: {d.label}: {d.detail} ([dim]{d.hint}[/dim])"
               for d in diagnostics(results.points)]
            + [f"[yellow]hint sets more than streams[/yellow]: {hint_effect_text(e)}" for e in effects])


def native_output_lines(results: StoredResults, verbose: bool) -> list[str]:
    """What OpenVINO's plugins or drivers wrote while compiling, kept out of the sweep's output: one line saying so,
    and with --verbose each compile's text."""
    logged = {p.compile.key: p.compile.native_log for p in results.points if p.compile and p.compile.native_log}
    if not logged:
        return []
    first = next(iter(logged.values())).splitlines()[0]
    lines = [f"native output: {len(logged)} compiles wrote to stdout or stderr while compiling (first line: "
             f"{escape(first[:120])}){'' if verbose else '; `ov-tuner --verbose show` prints it'}"]
    if verbose:
        for key, text in logged.items():
            lines += [f"[bold]{key.device} {key.precision.value} batch {key.batch} {key.mode.value} "
                      f"{key.streams or ''}[/bold]", escape(text)]
    return lines


def recommendation_lines(rec: Recommendation, snippets: DeploySnippets) -> list[str]:
    confirmed = "" if rec.confirmed else " [yellow](not confirmed head to head)[/yellow]"
    lines = [f"[bold green]deploy:[/bold green] {rec.winner.config.label()}{confirmed}",
             f"why: {escape(recommendation_text(rec))}"]
    lines += [f"[yellow]{why}[/yellow]" for why in rec.excluded]
    lines += [f"gain: {line}" for line in gain_lines(rec)]
    lines += [f"[yellow]note:[/yellow] {n}" for n in snippets.notes]
    lines += ["", "[bold]Python[/bold]", snippets.python, "[bold]benchmark_app[/bold]", snippets.benchmark_app, "",
              "[bold]benchmark_app -load_config file[/bold]", snippets.load_config]
    return lines


def coldstart_table(cold: ColdStart) -> Table:
    k = cold.key
    table = Table(title=f"Cold start: {k.device} {k.precision.value} batch {k.batch}, {k.streams} streams "
                        f"({len(cold.samples)} fresh processes each)")
    for column in ("figure", "median ms", "min ms", "max ms"):
        table.add_column(column, justify="left" if column == "figure" else "right")
    for name, label in COLDSTART_FIGURES:
        mid, low, high = cold.stat(name)
        table.add_row(label, f"{mid:.2f}", f"{low:.2f}", f"{high:.2f}")
    return table


COLDSTART_FIGURES = (
    ("read_ms", "read the model"),
    ("compile_ms", "compile, no cache"),
    ("first_infer_ms", "first inference"),
    ("steady_median_ms", "steady median after warm-up"),
    ("cache_write_compile_ms", "compile, writing CACHE_DIR"),
    ("cache_compile_ms", "compile from CACHE_DIR"),
    ("cache_first_infer_ms", "first inference after a cached compile"),
)


def profile_tables(profile: Profile, top: int) -> tuple[Table, Table]:
    c = profile.config
    head = f"{c.device} {c.precision.value} batch {c.batch}, {c.streams} streams x {c.nireq} requests"
    by_type = Table(title=f"Time by layer type: {head}; {profile.inferences} inferences, layers "
                          f"{profile.layer_ms_per_inference:.3f} ms of a {profile.mean_request_ms:.3f} ms request")
    for column in ("layer type", "share", "cumulative", "calls", "mean ms", "exec types (kernels)"):
        by_type.add_column(column, justify="left" if column in ("layer type", "exec types (kernels)") else "right")
    for row in profile.by_type():
        by_type.add_row(row.layer_type, f"{row.share:.1%}", f"{row.cumulative_share:.1%}", str(row.calls),
                        f"{row.mean_ms:.4f}", ", ".join(row.exec_types))
    layers = Table(title=f"Top {top} layers")
    for column in ("layer", "type", "exec type", "share", "cumulative", "calls", "mean ms"):
        layers.add_column(column, justify="right" if column in ("share", "cumulative", "calls", "mean ms") else "left")
    for layer, share, cumulative in profile.top_layers(top):
        layers.add_row(layer.name, layer.layer_type, layer.exec_type, f"{share:.1%}", f"{cumulative:.1%}",
                       str(layer.calls), f"{layer.mean_ms:.4f}")
    return by_type, layers


def zoo_table(models: list[tuple[str, str, ov.Model]]) -> Table:
    table = Table(title="ov-tuner zoo (build one with `ov-tuner zoo build NAME -o DIR`)")
    for column in ("name", "what", "inputs", "parameters", "GFLOPs"):
        table.add_column(column, justify="right" if column in ("parameters", "GFLOPs") else "left")
    for name, description, model in models:
        stats = model_stats(model)
        inputs = ", ".join(f"{p.get_any_name()} {p.get_element_type().get_type_name()}{p.get_partial_shape()}"
                           for p in model.inputs)
        table.add_row(name, description, inputs, f"{stats.parameters / 1e6:.2f} M", f"{stats.flops / 1e9:.2f}")
    return table


def summary_lines(summary: SweepSummary) -> list[str]:
    """What a sweep did, and what the same spaces would have cost as a fixed-time grid."""
    early = []
    if summary.outpaced:
        early.append(f"{summary.outpaced} stopped early, outpaced by a better one")
    if summary.decided:
        early.append(f"{summary.decided} stopped once the search had its answer")
    abandoned = (f", {summary.abandoned} skipped after their precision's first compile failed"
                 if summary.abandoned else "")
    lines = [f"{summary.measured} points measured{' (' + '; '.join(early) + ')' if early else ''}, {summary.failed} "
             f"failed, {summary.skipped} already stored"
             f"{f', {summary.dropped} left out by smart search' if summary.dropped else ''}{abandoned}; "
             f"{summary.compiles} compiles; results in {summary.out}"]
    grid_s = summary.fixed_grid_s
    if grid_s is not None:
        per_point, points = summary.search_s / summary.measured, summary.explicit_points
        lines.append(f"the search took {summary.search_s:.0f} s for {summary.measured} of {points} points; a "
                     f"fixed-time grid of all {points} at the same {per_point:.1f} s per point would take "
                     f"{grid_s:.0f} s")
    if summary.confirmed:
        wall = summary.search_s + summary.confirm_s
        lines.append(f"the confirmation round measured {summary.confirmed} configurations head to head in "
                     f"{summary.confirm_s:.0f} s ({summary.confirm_s / wall:.0%} of the sweep's {wall:.0f} s)")
    return lines


def comparison_table(comparison: Comparison) -> Table:
    """Every configuration measured in all files: FPS and p90 in each, against the first file's."""
    files = comparison.files
    table = Table(title="Configurations measured in every file (ratios against file 1)")
    table.add_column("configuration")
    for i, _ in enumerate(files, 1):
        table.add_column(f"file {i} FPS", justify="right")
        if i > 1:
            table.add_column(f"file {i}/1 FPS", justify="right")
            table.add_column(f"file {i}/1 p90", justify="right")
    for m in comparison.matched:
        cells = [matched_label(m)]
        for i, (p, fps, p90) in enumerate(zip(m.points, m.fps_ratios(), m.p90_ratios(), strict=True)):
            cells.append(f"{p.fps:.1f}")
            if i:
                cells += [f"{fps:.2f}x", f"{p90:.2f}x"]
        table.add_row(*cells)
    return table


def comparison_lines(comparison: Comparison) -> list[str]:
    lines = [f"file {i}: {f.path} ({f.environment.host}, {f.environment.cpu_model}, OpenVINO "
             f"{f.environment.ov_version.split('-')[0]}, {f.environment.model_name})"
             for i, f in enumerate(comparison.files, 1)]
    lines += [f"differs: {d}" for d in comparison.differences] or ["the environments match"]
    lines += [b.reason for b in comparison.bests]
    lines += [f"only in file {i + 1}: {c.label()}" for i, c in comparison.only_in]
    return lines
