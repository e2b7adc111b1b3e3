"""The ov-tuner command line: parse flags, build a spec, make one library call, render the result."""

from __future__ import annotations

import functools
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from ov_tuner import __version__
from ov_tuner.errors import OvTunerError
from ov_tuner.grid import parse_counts, parse_devices, parse_precisions, parse_shapes
from ov_tuner.recommend import deploy_snippets
from ov_tuner.recommend import recommend as recommend_point
from ov_tuner.render import (
    best_table,
    devices_table,
    diagnostics_lines,
    points_table,
    recommendation_lines,
    saturation_lines,
)
from ov_tuner.runtime import Runtime
from ov_tuner.schema import PointConfig, PointResult, Status, SweepSpec
from ov_tuner.store import load_results
from ov_tuner.sweep import run_sweep

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  help="Find the OpenVINO streams x requests x batch x precision that gets the most out of a device.")
# Piped or captured output is still read by people (logs, reports): give tables room there.
out = Console(width=None if Console().is_terminal else 150)
err = Console(stderr=True)
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130

F = TypeVar("F", bound=Callable[..., Any])


def _one_line_errors(command: F) -> F:
    """Turn an OvTunerError into one line on stderr and a non-zero exit; let real bugs keep their traceback."""
    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except OvTunerError as e:
            err.print(f"[bold red]error:[/bold red] {e}", highlight=False, soft_wrap=True)
            raise typer.Exit(EXIT_BAD_INPUT) from None
    return wrapper  # type: ignore[return-value]


@app.command()
@_one_line_errors
def devices() -> None:
    """List the OpenVINO devices present, with the properties that shape a sweep."""
    runtime = Runtime()
    out.print(devices_table([runtime.device_info(d) for d in runtime.available_devices()]))


class _ProgressBar:
    """Shows the sweep's progress over points: current configuration, count and ETA."""

    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._task = progress.add_task("planning", total=None)

    def planned(self, to_measure: int, already_measured: int) -> None:
        if already_measured:
            self._progress.console.print(f"resuming: {already_measured} points already measured are kept")
        self._progress.update(self._task, total=to_measure)

    def starting(self, config: PointConfig) -> None:
        self._progress.update(self._task, description=config.label())

    def finished(self, point: PointResult) -> None:
        if point.status is Status.FAILED:
            self._progress.console.print(f"[red]failed[/red] {point.config.label()}: {point.error}", highlight=False)
        self._progress.advance(self._task)


@contextmanager
def _stop_on_ctrl_c() -> Iterator[threading.Event]:
    """First Ctrl-C: finish the current point, then stop. Second Ctrl-C: stop at once."""
    stop = threading.Event()

    def handler(signum: int, frame: object) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        err.print("stopping after the current point (Ctrl-C again to stop now)")

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


@app.command()
@_one_line_errors
def sweep(
    model: Annotated[Path, typer.Argument(help="OpenVINO IR (.xml) or ONNX model.")],
    device: Annotated[str, typer.Option(help="Devices, comma-separated: CPU, GPU, ...")] = "CPU",
    precision: Annotated[str, typer.Option(help="fp32, fp16 and/or bf16, comma-separated.")] = "fp32,fp16",
    streams: Annotated[str, typer.Option(help="NUM_STREAMS values, e.g. 1,2,4, or auto.")] = "auto",
    nireq: Annotated[str, typer.Option(help="Infer requests in flight, e.g. 1,2,4,8, or auto.")] = "auto",
    batch: Annotated[str, typer.Option(help="Batch sizes, e.g. 1,2,4.")] = "1",
    time: Annotated[float, typer.Option(min=0.05, help="Seconds measured per point, after warm-up.")] = 3.0,
    warmup: Annotated[float, typer.Option(min=0.0, help="Seconds of warm-up on each compiled model, after its "
                                          "first inference and before its first point.")] = 0.1,
    shape: Annotated[str | None, typer.Option(help="Input shapes for dynamic models: [1,3,224,224] or name[...].")]
    = None,
    out_path: Annotated[Path, typer.Option("--out", help="SQLite results file; rerunning resumes it.")]
    = Path("results.db"),
    baselines: Annotated[bool, typer.Option(help="Also measure OpenVINO's own LATENCY and THROUGHPUT hint choices.")]
    = True,
) -> None:
    """Measure every streams x nireq x batch x precision point and store each one as it completes."""
    spec = SweepSpec(
        model=model, out=out_path, devices=parse_devices(device), precisions=parse_precisions(precision),
        streams=parse_counts(streams, "--streams"), nireq=parse_counts(nireq, "--nireq"),
        batches=parse_counts(batch, "--batch", allow_auto=False) or (1,), time_s=time, warmup_s=warmup,
        shapes=parse_shapes(shape), baselines=baselines,
    )
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("ETA"), TimeRemainingColumn())
    try:
        with _stop_on_ctrl_c() as stop, Progress(*columns, console=err, transient=True) as progress:
            summary = run_sweep(spec, _ProgressBar(progress), stop)
    except KeyboardInterrupt:
        err.print(f"aborted: every completed point is kept in {out_path}; run the same command to resume")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    out.print(f"{summary.measured} points measured, {summary.failed} failed, {summary.skipped} already stored; "
              f"{summary.compiles} compiles; results in {summary.out}")
    if summary.interrupted:
        err.print(f"interrupted: measured points are kept in {out_path}; run the same command to resume")
        raise typer.Exit(EXIT_INTERRUPTED)
    out.print(best_table(load_results(out_path)))


@app.command()
@_one_line_errors
def show(results: Annotated[Path, typer.Argument(help="Results file written by `ov-tuner sweep`.")]) -> None:
    """Print every stored point, the best configuration per device and precision, and diagnostics."""
    stored = load_results(results)
    out.print(points_table(stored))
    out.print(best_table(stored))
    for line in saturation_lines(stored) + diagnostics_lines(stored):
        out.print(line, highlight=False)


@app.command()
@_one_line_errors
def plot(
    results: Annotated[Path, typer.Argument(help="Results file written by `ov-tuner sweep`.")],
    out_dir: Annotated[Path, typer.Option("-o", "--out-dir", help="Folder for the PNG figures.")] = Path("plots"),
) -> None:
    """Write heatmaps (streams x nireq) per device, precision and batch, and the comparison figures."""
    from ov_tuner.plots import write_figures  # matplotlib takes ~0.4 s to import: only plots and reports pay it

    stored = load_results(results)
    for path in write_figures(stored.points, stored.environment, stored.devices, out_dir).all():
        out.print(f"wrote {path}")


class Percentile(str, Enum):
    P50 = "50"
    P90 = "90"
    P99 = "99"


@app.command()
@_one_line_errors
def recommend(
    results: Annotated[Path, typer.Argument(help="Results file written by `ov-tuner sweep`.")],
    max_latency: Annotated[float | None, typer.Option(min=0.0, help="Latency budget per request, in ms.")] = None,
    percentile: Annotated[Percentile, typer.Option(help="Latency percentile the budget applies to.")]
    = Percentile.P90,
    device: Annotated[str | None, typer.Option(help="Only this device.")] = None,
    precision: Annotated[str | None, typer.Option(help="Only this precision: fp32, fp16 or bf16.")] = None,
    config_out: Annotated[Path | None, typer.Option(help="Also write the benchmark_app -load_config JSON here.")]
    = None,
) -> None:
    """The highest-throughput configuration within a latency budget, why it wins, and how to deploy it."""
    stored = load_results(results)
    chosen = parse_precisions(precision)[0] if precision else None
    rec = recommend_point(stored.points, max_latency, int(percentile.value), device and device.upper(), chosen)
    snippets = deploy_snippets(rec.winner)
    for line in recommendation_lines(rec, snippets):
        out.print(line, highlight=False)
    if config_out is not None:
        config_out.write_text(snippets.load_config + "\n")
        out.print(f"wrote {config_out}")


@app.command()
@_one_line_errors
def report(
    results: Annotated[Path, typer.Argument(help="Results file written by `ov-tuner sweep`.")],
    out_dir: Annotated[Path, typer.Option("-o", "--out-dir", help="Folder for report.html, report.md and figures.")]
    = Path("report"),
) -> None:
    """A self-contained HTML report and a Markdown summary: answers, figures, baselines and diagnostics."""
    from ov_tuner.report import build_report  # imports matplotlib

    files = build_report(load_results(results), out_dir)
    out.print(f"wrote {files.html} and {files.markdown} ({len(files.images)} figures)")


@app.command()
def version() -> None:
    """Print the ov-tuner and OpenVINO versions."""
    import openvino as ov

    out.print(f"ov-tuner {__version__}, OpenVINO {ov.get_version()}")
