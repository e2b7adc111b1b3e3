"""Rich tables and lines for the terminal: devices, points, best configurations, answers, diagnostics."""

from __future__ import annotations

from rich.table import Table

from ov_tuner.analysis import baseline_gains, best_per_device_precision, saturation
from ov_tuner.diagnostics import diagnostics
from ov_tuner.recommend import DeploySnippets, Recommendation
from ov_tuner.schema import DeviceInfo, Mode, PointResult
from ov_tuner.store import StoredResults


def devices_table(devices: list[DeviceInfo]) -> Table:
    table = Table(title="OpenVINO devices on this machine")
    for column in ("device", "full name", "streams range", "optimal nireq", "capabilities", "default precision"):
        table.add_column(column)
    for d in devices:
        streams = f"{d.streams_range[0]}-{d.streams_range[1]}" if d.streams_range else "n/a"
        table.add_row(d.name, d.full_name, streams, str(d.optimal_nireq or "n/a"), ", ".join(d.capabilities),
                      d.default_precision or "n/a")
    return table


def ran(p: PointResult) -> str:
    """'f32' when the device ran what was asked, else 'asked->ran'."""
    if p.compile is None:
        return "-"
    asked = p.compile.requested.get("INFERENCE_PRECISION_HINT", "?")
    executed = p.compile.executed_precision
    return asked if executed in (asked, "unknown") else f"{asked}->{executed}"


def _streams(p: PointResult) -> str:
    """Streams asked and, where the device chose or changed them, what ran."""
    if p.config.mode is not Mode.GRID:
        return f"{p.config.mode.performance_hint.lower()}: {p.streams}" if p.compile else p.config.mode.value
    return str(p.config.streams) if p.streams == p.config.streams else f"{p.config.streams}->{p.streams}"


def points_table(results: StoredResults) -> Table:
    env = results.environment
    table = Table(title=f"{env.model_name}: every point (OpenVINO {env.ov_version.split('-')[0]}, {env.cpu_model})")
    for column in ("device", "prec", "ran", "batch", "streams", "nireq", "FPS", "median ms", "p90 ms", "p99 ms",
                   "min-max ms", "samples", "FPS CV", "compile ms", "1st inf. ms"):
        table.add_column(column, justify="left" if column in ("device", "prec", "ran", "streams") else "right")
    for p in results.points:
        c = p.config
        head = [c.device, c.precision.value, ran(p), str(c.batch), _streams(p), str(p.nireq)]
        if not p.ok:
            table.add_row(*head, "[red]failed[/red]", *[""] * 8)
            continue
        assert p.measurement is not None
        m, lat = p.measurement, p.measurement.latency
        cv = f"{m.fps_cv:.1%}" if m.fps_cv is not None else "-"
        cold = [f"{p.compile.compile_ms:.1f}", f"{p.compile.first_infer_ms:.2f}"] if p.compile else ["-", "-"]
        table.add_row(*head, f"{m.fps:.1f}", f"{lat.median:.3f}", f"{lat.p90:.3f}", f"{lat.p99:.3f}",
                      f"{lat.min:.3f}-{lat.max:.3f}", str(lat.count), cv, *cold)
    return table


def best_table(results: StoredResults) -> Table:
    table = Table(title="Best throughput per device and precision")
    for column in ("device", "precision", "ran", "batch", "streams", "nireq", "FPS", "median ms", "p90 ms",
                   "vs OpenVINO hints"):
        table.add_column(column)
    for best in best_per_device_precision(results.points):
        p = best.point
        gains = ", ".join(f"{g.fps_gain:+.0%} vs {g.baseline.config.mode.value}"
                          for g in baseline_gains(p, results.points)) or "-"
        table.add_row(best.device, best.precision.value, ran(p), str(p.config.batch), str(p.config.streams),
                      str(p.config.nireq), f"[bold]{best.fps:.1f}[/bold]", f"{p.latency_ms(50):.3f}",
                      f"{p.latency_ms(90):.3f}", gains)
    return table


def saturation_lines(results: StoredResults) -> list[str]:
    return [s.reason for s in saturation(results.points)]


def diagnostics_lines(results: StoredResults) -> list[str]:
    return [f"[yellow]{d.kind.value}[/yellow]: {d.label}: {d.detail} ([dim]{d.hint}[/dim])"
            for d in diagnostics(results.points)]


def recommendation_lines(rec: Recommendation, snippets: DeploySnippets) -> list[str]:
    lines = [f"[bold green]deploy:[/bold green] {rec.winner.config.label()}", f"why: {rec.reason}"]
    lines += [f"gain: {g.reason}" for g in rec.baselines]
    lines += [f"[yellow]note:[/yellow] {n}" for n in snippets.notes]
    lines += ["", "[bold]Python[/bold]", snippets.python, "[bold]benchmark_app[/bold]", snippets.benchmark_app, "",
              "[bold]benchmark_app -load_config file[/bold]", snippets.load_config]
    return lines
