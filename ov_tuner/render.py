"""Rich tables for the terminal: devices, every stored point, best configurations, diagnostics."""

from __future__ import annotations

from rich.table import Table

from ov_tuner.analysis import best_per_device_precision, diagnostics
from ov_tuner.schema import DeviceInfo, PointResult, Status
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


def _ran(p: PointResult) -> str:
    """'f32' when the device ran what was asked, else 'asked->ran'."""
    if p.compile is None:
        return "-"
    asked = p.compile.requested.get("INFERENCE_PRECISION_HINT", "?")
    ran = p.compile.executed_precision
    return asked if ran in (asked, "unknown") else f"{asked}->{ran}"


def points_table(results: StoredResults) -> Table:
    env = results.environment
    table = Table(title=f"{env.model_name}: every point (OpenVINO {env.ov_version.split('-')[0]}, {env.cpu_model})")
    for column in ("device", "prec", "ran", "batch", "streams", "nireq", "FPS", "median ms", "p90 ms", "p99 ms",
                   "min-max ms", "samples", "FPS CV", "compile ms", "1st inf. ms"):
        table.add_column(column, justify="left" if column in ("device", "prec", "ran") else "right")
    for p in results.points:
        c = p.config
        streams = str(c.streams)
        if p.compile is not None and p.compile.num_streams != c.streams:
            streams = f"{c.streams}->{p.compile.num_streams}"
        head = [c.device, c.precision.value, _ran(p), str(c.batch), streams, str(c.nireq)]
        if p.status is Status.FAILED or p.measurement is None:
            table.add_row(*head, "[red]failed[/red]", *[""] * 8)
            continue
        m, lat = p.measurement, p.measurement.latency
        cv = f"{m.fps_cv:.1%}" if m.fps_cv is not None else "-"
        cold = [f"{p.compile.compile_ms:.1f}", f"{p.compile.first_infer_ms:.2f}"] if p.compile else ["-", "-"]
        table.add_row(*head, f"{m.fps:.1f}", f"{lat.median:.3f}", f"{lat.p90:.3f}", f"{lat.p99:.3f}",
                      f"{lat.min:.3f}-{lat.max:.3f}", str(lat.count), cv, *cold)
    return table


def best_table(results: StoredResults) -> Table:
    table = Table(title="Best throughput per device and precision")
    for column in ("device", "precision", "ran", "batch", "streams", "nireq", "FPS", "median ms", "p90 ms"):
        table.add_column(column)
    for best in best_per_device_precision(results.points):
        p = best.point
        assert p.measurement is not None
        lat = p.measurement.latency
        table.add_row(best.device, best.precision.value, _ran(p), str(p.config.batch), str(p.config.streams),
                      str(p.config.nireq), f"[bold]{best.fps:.1f}[/bold]", f"{lat.median:.3f}", f"{lat.p90:.3f}")
    return table


def diagnostics_lines(results: StoredResults) -> list[str]:
    return [f"[yellow]{d.kind.value}[/yellow]: {d.label}: {d.detail} ([dim]{d.hint}[/dim])"
            for d in diagnostics(results.points)]
