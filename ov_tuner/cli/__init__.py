"""The ov-tuner command line: parse flags, build a spec, make one library call, render the result."""

from __future__ import annotations

import functools
import json
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
from ov_tuner.analyse.recommend import deploy_snippets, recommendation_json
from ov_tuner.analyse.recommend import recommend as recommend_point
from ov_tuner.devices.runtime import Runtime
from ov_tuner.errors import OvTunerError
from ov_tuner.measure.coldstart import ColdStartSpec, run_coldstart
from ov_tuner.measure.profile import run_profile
from ov_tuner.model.architectures import ARCHITECTURES
from ov_tuner.model.zoo import DESCRIPTIONS, build_zoo_model, zoo_model
from ov_tuner.present.render import (
    answer_lines,
    best_table,
    coldstart_table,
    devices_table,
    diagnostics_lines,
    headtohead_tables,
    points_table,
    profile_tables,
    recommendation_lines,
    saturation_lines,
    summary_lines,
    zoo_table,
)
from ov_tuner.schema import ConfirmRule, InputMode, PointConfig, PointResult, Search, Status, SweepSpec
from ov_tuner.search.grid import (
    parse_counts,
    parse_devices,
    parse_layouts,
    parse_precisions,
    parse_shapes,
    parse_stop_rule,
)
from ov_tuner.store.results import load_results
from ov_tuner.sweep import run_sweep

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  help="Find the OpenVINO streams x requests x batch x precision that gets the most out of a device.")
# Piped or captured output is still read by people (logs, reports): give tables room there.
out = Console(width=None if Console().is_terminal else 180)
err = Console(stderr=True)
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130

F = TypeVar("F", bound=Callable[..., Any])

# Options that several commands share.
ModelArgument = Annotated[Path, typer.Argument(help="OpenVINO IR (.xml), ONNX, or another model OpenVINO converts.")]
OneDevice = Annotated[str, typer.Option(help="One device: CPU, GPU, ...")]
OnePrecision = Annotated[str, typer.Option(help="fp32, fp16 or bf16.")]
Count = Annotated[int, typer.Option(min=1)]
ShapeOption = Annotated[str | None, typer.Option(help="Input shapes for dynamic models: [1,3,224,224] or name[...].")]
ResultsOut = Annotated[Path, typer.Option("--out", help="SQLite results file; stored with a sweep's results.")]


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

    def note(self, text: str) -> None:
        self._progress.console.print(text, highlight=False)

    def starting(self, config: PointConfig) -> None:
        self._progress.update(self._task, description=config.label())

    def finished(self, point: PointResult) -> None:
        if point.status is Status.FAILED:
            self._progress.console.print(f"[red]failed[/red] {point.config.label()}: {point.error}", highlight=False)
        self._progress.advance(self._task)

    def dropped(self, count: int) -> None:
        """Smart search left points out: the bar's total shrinks, so its ETA stays honest."""
        total = self._progress.tasks[self._task].total or 0
        self._progress.update(self._task, total=total - count)


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
    model: ModelArgument,
    device: Annotated[str, typer.Option(help="Devices, comma-separated: CPU, GPU, ...")] = "CPU",
    precision: Annotated[str, typer.Option(help="fp32, fp16 and/or bf16, comma-separated.")] = "fp32,fp16",
    streams: Annotated[str, typer.Option(help="NUM_STREAMS values, e.g. 1,2,4, or auto.")] = "auto",
    nireq: Annotated[str, typer.Option(help="Infer requests in flight, e.g. 1,2,4,8, or auto.")] = "auto",
    batch: Annotated[str, typer.Option(help="Batch sizes, e.g. 1,2,4.")] = "1",
    time: Annotated[str, typer.Option(help="Seconds measured per point, or auto: windows until the last three "
                                      "agree within --tolerance (at most --max-time).")] = "auto",
    window: Annotated[float, typer.Option(min=0.05, help="Seconds per measurement window.")] = 1.0,
    tolerance: Annotated[float, typer.Option(min=0.0, help="With --time auto: how closely the last three "
                                             "windows must agree on FPS and median latency (0.03 = 3%).")] = 0.03,
    max_time: Annotated[float, typer.Option(min=0.1, help="With --time auto: most seconds per point.")] = 10.0,
    search: Annotated[Search, typer.Option(help="grid: every point; smart: raise requests and streams only "
                                           "while they pay.")] = Search.SMART,
    input_mode: Annotated[InputMode, typer.Option(help="full: copy fresh input data into every request before "
                                                  "each start, to see what host-side input costs.")]
    = InputMode.INFERENCE_ONLY,
    warmup: Annotated[float, typer.Option(min=0.0, help="Seconds of warm-up on each compiled model, after its "
                                          "first inference and before its first point.")] = 0.1,
    shape: ShapeOption = None,
    out_path: Annotated[Path, typer.Option("--out", help="SQLite results file; rerunning resumes it.")]
    = Path("results.db"),
    baselines: Annotated[bool, typer.Option(help="Also measure OpenVINO's own LATENCY and THROUGHPUT hint choices.")]
    = True,
    confirm: Annotated[bool, typer.Option(help="After the search, measure the contenders again head to head, "
                                          "interleaved, and state gains and ties with 95% intervals.")] = True,
    confirm_rounds: Annotated[int, typer.Option(min=2, help="Interleaved passes of the confirmation round: more "
                                                "narrow the intervals on a noisy host.")] = ConfirmRule().rounds,
    layout: Annotated[str | None, typer.Option(help="Input layouts where the model has none: NCHW, or "
                                               "name[NHWC],mask[NC]; the batch is the N axis.")] = None,
    images: Annotated[Path | None, typer.Option(help="Folder of .png/.jpg/.bmp images to feed the image input "
                                                "(read with OpenCV) instead of generated data.")] = None,
) -> None:
    """Measure streams x nireq x batch x precision points (all of them with --search grid), each stored as it
    completes; rerunning resumes."""
    spec = SweepSpec(
        model=model, out=out_path, devices=parse_devices(device), precisions=parse_precisions(precision),
        streams=parse_counts(streams, "--streams"), nireq=parse_counts(nireq, "--nireq"),
        batches=parse_counts(batch, "--batch", allow_auto=False) or (1,), warmup_s=warmup,
        stop=parse_stop_rule(time, window, tolerance, max_time), search=search, input_mode=input_mode,
        shapes=parse_shapes(shape), layouts=parse_layouts(layout), images=images, baselines=baselines,
        confirm=ConfirmRule(rounds=confirm_rounds) if confirm else None,
    )
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("ETA"), TimeRemainingColumn())
    try:
        with _stop_on_ctrl_c() as stop, Progress(*columns, console=err, transient=True) as progress:
            summary = run_sweep(spec, _ProgressBar(progress), stop)
    except KeyboardInterrupt:
        err.print(f"aborted: every completed point is kept in {out_path}; run the same command to resume")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    for line in summary_lines(summary):
        out.print(line, highlight=False)
    if summary.interrupted:
        err.print(f"interrupted: measured points are kept in {out_path}; run the same command to resume")
        raise typer.Exit(EXIT_INTERRUPTED)
    stored = load_results(out_path)
    out.print(best_table(stored))
    for table in headtohead_tables(stored):
        out.print(table)
    for line in answer_lines(stored):
        out.print(line, highlight=False)


@app.command()
@_one_line_errors
def show(results: Annotated[Path, typer.Argument(help="Results file written by `ov-tuner sweep`.")]) -> None:
    """Print every stored point, the best configuration per device and precision, and diagnostics."""
    stored = load_results(results)
    out.print(points_table(stored))
    out.print(best_table(stored))
    for table in headtohead_tables(stored):
        out.print(table)
    for line in answer_lines(stored) + saturation_lines(stored) + diagnostics_lines(stored):
        out.print(line, highlight=False)


@app.command()
@_one_line_errors
def plot(
    results: Annotated[Path, typer.Argument(help="Results file written by `ov-tuner sweep`.")],
    out_dir: Annotated[Path, typer.Option("-o", "--out-dir", help="Folder for the PNG figures.")] = Path("plots"),
    paired_only: Annotated[bool, typer.Option(help="Precision figures: leave out the cells measured apart, in the "
                                              "search; keep those measured head to head.")] = False,
) -> None:
    """Write heatmaps (streams x nireq) per device, precision and batch, and the comparison figures."""
    from ov_tuner.present.plots import write_figures  # matplotlib takes ~0.4 s to import: only plots and reports pay it

    figures = write_figures(load_results(results), out_dir, paired_only)
    for path in figures.all():
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
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead: the configuration, its "
                                          "figures, whether it was confirmed, ties and gains with intervals.")]
    = False,
) -> None:
    """The highest-throughput configuration within a latency budget, why it wins, and how to deploy it."""
    stored = load_results(results)
    chosen = parse_precisions(precision)[0] if precision else None
    rec = recommend_point(stored.points, max_latency, int(percentile.value), device and device.upper(), chosen,
                          stored.confirmations)
    if as_json:
        print(json.dumps(recommendation_json(rec), indent=2))
        return
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
    from ov_tuner.present.report import build_report  # imports matplotlib

    files = build_report(load_results(results), out_dir)
    out.print(f"wrote {files.html} and {files.markdown} ({len(files.images)} figures)")


@app.command()
@_one_line_errors
def coldstart(
    model: ModelArgument,
    device: OneDevice = "CPU",
    precision: OnePrecision = "fp32",
    batch: Count = 1,
    streams: Count = 1,
    repeats: Annotated[int, typer.Option(min=1, help="Fresh processes per figure.")] = 5,
    shape: ShapeOption = None,
    out_path: ResultsOut = Path("results.db"),
) -> None:
    """Why the first inference is slow: read, compile (with and without CACHE_DIR), first and steady inference."""
    spec = ColdStartSpec(model, out_path, device.upper(), parse_precisions(precision)[0], batch, streams,
                         parse_shapes(shape), repeats)
    cold = run_coldstart(spec)
    out.print(coldstart_table(cold))
    out.print(cold.reason, highlight=False)


@app.command()
@_one_line_errors
def profile(
    model: ModelArgument,
    device: OneDevice = "CPU",
    precision: OnePrecision = "fp32",
    streams: Count = 1,
    nireq: Count = 1,
    batch: Count = 1,
    time: Annotated[float, typer.Option(min=0.05, help="Seconds of inferences to profile.")] = 2.0,
    top: Annotated[int, typer.Option(min=1, help="Layers in the table and the chart.")] = 15,
    shape: ShapeOption = None,
    out_path: ResultsOut = Path("results.db"),
    plot_dir: Annotated[Path | None, typer.Option("--plot-dir", help="Also draw the top layers here.")] = None,
) -> None:
    """Per-layer time from OpenVINO's counters, by layer type and by layer, with the kernels that ran."""
    config = PointConfig(device.upper(), parse_precisions(precision)[0], batch, streams, nireq)
    result = run_profile(model, config, time, out_path, parse_shapes(shape))
    for table in profile_tables(result, top):
        out.print(table)
    if plot_dir is not None:
        from ov_tuner.present.plots import save_profile_figure  # imports matplotlib

        out.print(f"wrote {save_profile_figure(result, model.stem, plot_dir, top)}")


zoo_app = typer.Typer(help="Reference architectures built locally with deterministic weights.", no_args_is_help=True)
app.add_typer(zoo_app, name="zoo")


@zoo_app.command("list")
@_one_line_errors
def zoo_list() -> None:
    """Every zoo model with its inputs, parameters and FLOPs per batch-1 inference."""
    out.print(zoo_table([(name, DESCRIPTIONS[name], zoo_model(name)) for name in ARCHITECTURES]))


@zoo_app.command("build")
@_one_line_errors
def zoo_build(
    name: Annotated[str, typer.Argument(help="A name from `ov-tuner zoo list`.")],
    out_dir: Annotated[Path, typer.Option("-o", "--out-dir", help="Folder for the IR (.xml and .bin).")]
    = Path("models"),
) -> None:
    """Write a zoo model as an OpenVINO IR with an FP32 body and a dynamic batch."""
    path, stats = build_zoo_model(name, out_dir)
    out.print(f"wrote {path}: {stats.parameters / 1e6:.2f} M parameters, {stats.flops / 1e9:.2f} GFLOPs per "
              "batch-1 inference")


@app.command()
def version() -> None:
    """Print the ov-tuner and OpenVINO versions."""
    import openvino as ov

    out.print(f"ov-tuner {__version__}, OpenVINO {ov.get_version()}")
