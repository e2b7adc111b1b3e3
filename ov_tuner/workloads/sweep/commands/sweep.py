"""`ov-tuner sweep`: flags -> a SweepSpec -> run_sweep, with a progress bar and Ctrl-C that keeps what was measured."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ov_tuner.commandline.app import (
    EXIT_INTERRUPTED,
    app,
    err,
    one_line_errors,
    options,
    out,
    read_devices,
    stop_on_ctrl_c,
    with_options_of,
)
from ov_tuner.commandline.clock import ConsoleWatch, TimeBudgetOption, budget_seconds
from ov_tuner.commandline.flags import (
    cache_choice,
    int8_asked,
    int8_options,
    parse_counts,
    parse_layouts,
    parse_precisions,
    parse_settings,
    parse_shapes,
    parse_stop_rule,
)
from ov_tuner.commandline.renamed import Renamed, renamed_flags
from ov_tuner.engine.budget import TimeBudget
from ov_tuner.present.terminal import print_sections
from ov_tuner.schema import (
    ACCURACY_INPUTS,
    ConfirmRule,
    InputMode,
    PointConfig,
    PointResult,
    Preset,
    Search,
    Status,
    SweepSpec,
    default_window,
)
from ov_tuner.workloads.sweep.commands.options import Devices, Int8MaxDrop, ModelArgument, Precisions, ShapeOption
from ov_tuner.workloads.sweep.notices import Notice, Resuming
from ov_tuner.workloads.sweep.present.words.notices import notice_text, summary_lines

if TYPE_CHECKING:
    from rich.progress import Progress, ProgressColumn

SWEEP_RENAMED = {"--time": Renamed("--seconds"), "--max-time": Renamed("--max-seconds"),
                 "--confirm-rounds": Renamed("--passes")}
renamed_flags("sweep", SWEEP_RENAMED)


class ProgressBar:
    """Shows the sweep's progress over points: current configuration, count and ETA."""

    def __init__(self, progress: Progress, host: str = "") -> None:
        self._progress = progress
        self._host = f"{host}: " if host else ""  # a fleet sweep shows one bar per host
        self._task = progress.add_task(f"{self._host}planning", total=None)

    def planned(self, to_measure: int, already_measured: int) -> None:
        if already_measured:
            self.note(Resuming(already_measured))
        self._progress.update(self._task, total=to_measure)

    def note(self, notice: Notice) -> None:
        self.say(notice_text(notice))

    def say(self, text: str, markup: bool = False) -> None:
        self._progress.console.print(f"{self._host}{text}", highlight=False, soft_wrap=True, markup=markup)

    def starting(self, config: PointConfig) -> None:
        self._progress.update(self._task, description=f"{self._host}{config.label()}")

    def finished(self, point: PointResult) -> None:
        if point.status is Status.FAILED:
            first, *rest = (point.error or "no message").splitlines()
            self._progress.console.print(f"{self._host}[red]failed[/red] {point.config.label()}: {first}",
                                         highlight=False, soft_wrap=True)
            if options.verbose and rest:
                self._progress.console.print("\n".join(rest), highlight=False, markup=False)
        self._progress.advance(self._task)

    def dropped(self, count: int) -> None:
        """Smart search left points out: the bar's total shrinks, so its ETA stays honest."""
        total = self._progress.tasks[self._task].total or 0
        self._progress.update(self._task, total=total - count)


def sweep_spec(
    model: ModelArgument,
    device: Devices = None,
    precision: Precisions = "auto",
    streams: Annotated[str, typer.Option(help="NUM_STREAMS values, e.g. 1,2,4, or auto.")] = "auto",
    nireq: Annotated[str, typer.Option(help="Infer requests in flight, e.g. 1,2,4,8, or auto.")] = "auto",
    batch: Annotated[str, typer.Option(help="Batch sizes, e.g. 1,2,4.")] = "1",
    seconds: Annotated[str, typer.Option(help="Seconds measured per point, or auto: windows until the last three "
                                         "agree within --tolerance (at most --max-seconds).")] = "auto",
    window: Annotated[float | None, typer.Option(min=0.05, help="Seconds per measurement window [default: 0.5 "
                                                 "in a smart search confirmed head to head, else 1].")] = None,
    tolerance: Annotated[float, typer.Option(min=0.0, help="With --seconds auto: how closely the last three "
                                             "windows must agree on FPS and median latency (0.03 = 3%).")] = 0.03,
    max_seconds: Annotated[float, typer.Option(min=0.1, help="With --seconds auto: the most seconds per point.")]
    = 10.0,
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
    baselines: Annotated[bool, typer.Option(help="Also measure OpenVINO default and its own LATENCY and THROUGHPUT "
                                            "hint choices.")] = True,
    confirm: Annotated[bool, typer.Option(help="After the search, measure the contenders again head to head, "
                                          "interleaved, and state gains and ties with 95% intervals.")] = True,
    passes: Annotated[int, typer.Option(min=2, help="Interleaved passes of the confirmation round over every "
                                        "contender: more narrow the intervals on a noisy host.")]
    = ConfirmRule().passes,
    set_: Annotated[list[str] | None, typer.Option("--set", help="A compile property as a sweep axis, e.g. "
                                                   "GPU_QUEUE_THROTTLE=LOW,HIGH or INFERENCE_NUM_THREADS=1,2 "
                                                   "(one value: set for every point); repeatable.")] = None,
    accuracy: Annotated[bool, typer.Option(help="Compare every precision's outputs with the FP32 reference (CPU, f32) "
                                           "on fixed inputs, outside the timed loops.")] = True,
    accuracy_inputs: Annotated[int, typer.Option(min=1, help="Inputs the output comparison runs (with --images: "
                                                 "every image).")] = ACCURACY_INPUTS,
    cache_dir: Annotated[str, typer.Option(help="CACHE_DIR for compiles: auto (beside --out, on GPUs and virtual "
                                           "devices, where compiling is slow), none, or a folder (every device)."
                                           )] = "auto",
    layout: Annotated[str | None, typer.Option(help="Input layouts where the model has none: NCHW, or "
                                               "name[NHWC],mask[NC]; the batch is the N axis.")] = None,
    images: Annotated[Path | None, typer.Option(help="Folder of .png/.jpg/.bmp images to feed the image input "
                                                "(read with OpenCV) instead of generated data; with int8, every "
                                                "other image calibrates and the rest measure accuracy.")] = None,
    int8_max_drop: Int8MaxDrop = None,
    cpus: Annotated[float | None, typer.Option(min=0.01, help="Measure inside a CPU quota of this many CPUs, as a "
                                               "container limited to them (docker --cpus, a Kubernetes CPU limit) "
                                               "gets: ov-tuner sets it up (a child cgroup; needs root), and the "
                                               "search adds INFERENCE_NUM_THREADS within it.")] = None,
    time_budget: TimeBudgetOption = None,
) -> SweepSpec:
    """The sweep's flags as a spec: every flag checked before anything is measured. `sweep` and `fleet sweep`
    both take these options. Long only for its signature, an option and its help per flag."""
    cache = cache_choice(cache_dir, out_path)
    return SweepSpec(
        model=model, out=out_path, devices=read_devices(device), precisions=parse_precisions(precision),
        streams=parse_counts(streams, "--streams"), nireq=parse_counts(nireq, "--nireq"),
        batches=parse_counts(batch, "--batch", allow_auto=False) or (1,), warmup_s=warmup,
        stop=parse_stop_rule(seconds, window or default_window(search, confirm), tolerance, max_seconds),
        search=search, input_mode=input_mode,
        shapes=parse_shapes(shape), layouts=parse_layouts(layout), images=images, baselines=baselines,
        confirm=ConfirmRule(passes=passes) if confirm else None, settings=parse_settings(set_ or []),
        cache_dir=cache[0], cache_everywhere=cache[1], accuracy_inputs=accuracy_inputs if accuracy else None,
        int8=int8_options(int8_asked(precision), Preset.PERFORMANCE, None, int8_max_drop), cpus=cpus,
        time_budget_s=budget_seconds(time_budget),
    )


def progress_columns() -> tuple[ProgressColumn, ...]:
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    return (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TextColumn("ETA"), TimeRemainingColumn())


@app.command()
@one_line_errors
@with_options_of(sweep_spec)
def sweep(spec: SweepSpec) -> None:
    """Measure streams x nireq x batch x precision points (all of them with --search grid), each stored as it
    completes; rerunning resumes."""
    from rich.progress import Progress

    from ov_tuner.analyse.answer import answer_if_any
    from ov_tuner.store.results import load_results
    from ov_tuner.workloads.sweep import run_sweep  # the engine: OpenVINO and numpy, which --help goes without
    from ov_tuner.workloads.sweep.present.documents import sweep_ending

    out_path = spec.out
    budget = None if spec.time_budget_s is None else TimeBudget(spec.time_budget_s)
    columns = progress_columns()
    try:
        with stop_on_ctrl_c("point") as stop, Progress(*columns, console=err, transient=True) as progress:
            summary = run_sweep(spec, ProgressBar(progress), stop, budget=budget, watch=ConsoleWatch(out, live=False))
    except KeyboardInterrupt:
        err.print(f"aborted: every completed point is kept in {out_path}; run the same command to resume")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if summary.interrupted:
        for line in summary_lines(summary):
            out.print(line, highlight=False)
        err.print(f"interrupted: measured points are kept in {out_path}; run the same command to resume")
        raise typer.Exit(EXIT_INTERRUPTED)
    print_sections(out, sweep_ending(answer_if_any(load_results(out_path)), summary), titles=False)
