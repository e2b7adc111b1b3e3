"""Edge commands: `capacity` (cameras served under open-loop load) and `soak` (one configuration for a long time)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ov_tuner.commandline.app import (
    EXIT_INTERRUPTED,
    app,
    ctrl_c_interrupts,
    err,
    one_line_errors,
    out,
    read_devices,
    say_quantizing,
    stop_on_ctrl_c,
)
from ov_tuner.commandline.flags import (
    int8_asked,
    one_device,
    one_precision,
    parse_counts,
    parse_precisions,
    parse_shapes,
)
from ov_tuner.commandline.renamed import PLOTS, Renamed, minutes_as_seconds, renamed_flags
from ov_tuner.errors import BadInputError, Given
from ov_tuner.present.terminal import print_sections
from ov_tuner.schema import AUTO, Arrival, CameraTarget, LoadTrial, PointConfig, Quantization, SoakWindow
from ov_tuner.store.destinations import output_folder
from ov_tuner.workloads.sweep.commands.options import Devices, ModelArgument, OnePrecision, Precisions, ShapeOption

if TYPE_CHECKING:
    from ov_tuner.analyse.drift import SoakDrift
    from ov_tuner.deployable.deployed import Deployed
    from ov_tuner.schema import Environment
    from ov_tuner.workloads.sweep.soak.workload import SoakSpec

renamed_flags("soak", {"--minutes": Renamed("--seconds", minutes_as_seconds), **PLOTS})
renamed_flags("capacity", PLOTS)

FromOption = Annotated[Path | None, typer.Option("--from", help="A results file of a sweep of this model: take its "
                                                 "best configurations from there, int8 included (and store the runs "
                                                 "in it).")]
OutOption = Annotated[Path | None, typer.Option("--out", help="SQLite results file to store the runs in (default: "
                                                "the --from file, else results.db).")]
PlotOption = Annotated[Path | None, typer.Option("--out-dir", help="Also draw the figure in this folder.")]


@app.command()
@one_line_errors
def capacity(
    model: ModelArgument,
    fps: Annotated[float, typer.Option(min=0.01, help="Frames per second each camera sends.")] = 30.0,
    max_latency: Annotated[float, typer.Option(min=0.01, help="Latency budget in ms, from a frame's arrival to "
                                               "its result.")] = 100.0,
    percentile: Annotated[float, typer.Option(min=50.0, max=99.9, help="The latency percentile the budget holds "
                                              "at, 50 to 99.9.")] = 99.0,
    cameras: Annotated[int | None, typer.Option(min=1, help="Run this many cameras; left out, find the most each "
                                                "configuration serves.")] = None,
    arrival: Annotated[Arrival, typer.Option(help="constant: each camera at a fixed interval; poisson: random "
                                             "arrivals at the same rate.")] = Arrival.CONSTANT,
    device: Devices = None,
    precision: Precisions = AUTO,
    streams: Annotated[str | None, typer.Option(help="NUM_STREAMS values, e.g. 1,2.")] = None,
    nireq: Annotated[str | None, typer.Option(help="Requests in flight, e.g. 2,4.")] = None,
    from_results: FromOption = None,
    top: Annotated[int, typer.Option(min=1, help="With --from: how many of its best batch-1 configurations.")] = 3,
    seconds: Annotated[float, typer.Option(min=0.5, help="Seconds of arrivals counted per trial (after a "
                                           "1 s lead-in that is not).")] = 5.0,
    shape: ShapeOption = None,
    out_path: OutOption = None,
    plot_dir: PlotOption = None,
) -> None:
    """Open-loop load from cameras: per configuration, the most cameras it serves within the latency budget (or
    how it serves --cameras), latency counted from each frame's arrival. Batch 1: each frame is one request."""
    from ov_tuner.analyse.capacity import latest_served
    from ov_tuner.store.results import load_results
    from ov_tuner.workloads.sweep.capacity.job import run_capacity
    from ov_tuner.workloads.sweep.capacity.workload import CapacitySpec
    from ov_tuner.workloads.sweep.present.documents import capacity_section
    from ov_tuner.workloads.sweep.present.words.edge import trial_line

    configs, int8 = _configs(model=model, device=device, precision=precision, streams=streams, nireq=nireq,
                             from_results=from_results, top=top)
    target = CameraTarget(fps, max_latency, percentile, arrival)
    spec = CapacitySpec(model, _out(out_path, from_results), configs, target, cameras, seconds,
                        shapes=parse_shapes(shape), int8=int8)
    if plot_dir is not None:
        output_folder(plot_dir, Given("--out-dir"))

    def seen(config: PointConfig, trial: LoadTrial) -> None:
        out.print(f"{config.label()}: {trial_line(trial, target)}", highlight=False, soft_wrap=True)

    with stop_on_ctrl_c("trial") as stop:
        runs = run_capacity(spec, seen, stop, say_quantizing)
    served = latest_served(runs)
    figure = None
    if plot_dir is not None:
        from ov_tuner.present.drawing import save_figure
        from ov_tuner.workloads.sweep.present.edge_figures import capacity_figure  # imports matplotlib

        stored = load_results(spec.out)
        figure = save_figure(capacity_figure(served, stored.environment), plot_dir, "capacity")
    print_sections(out, [capacity_section(served, figure)], titles=False)
    if stop.is_set():
        err.print(f"interrupted: the trials measured are kept in {spec.out}")
        raise typer.Exit(EXIT_INTERRUPTED)


@app.command()
@one_line_errors
def soak(
    model: ModelArgument,
    seconds: Annotated[float, typer.Option(min=0.6, help="Seconds to run (600: ten minutes).")] = 600.0,
    window: Annotated[float, typer.Option(min=0.1, help="Seconds per window.")] = 5.0,
    device: Devices = None,
    precision: OnePrecision = AUTO,
    streams: Annotated[int | None, typer.Option(min=1, help="NUM_STREAMS.")] = None,
    nireq: Annotated[int | None, typer.Option(min=1, help="Requests in flight.")] = None,
    batch: Annotated[int, typer.Option(min=1)] = 1,
    from_results: FromOption = None,
    shape: ShapeOption = None,
    out_path: OutOption = None,
    plot_dir: PlotOption = None,
) -> None:
    """Run one configuration (the one --from a sweep recommends, or --streams/--nireq) for --seconds, ten minutes by
    default, and say whether it held: FPS, p99, the CPU clock and other processes' load per window; Ctrl-C keeps the
    windows measured."""
    from ov_tuner.deployable.configs import one_config
    from ov_tuner.workloads.sweep.present.documents import soak_section
    from ov_tuner.workloads.sweep.soak.job import latest_soak
    from ov_tuner.workloads.sweep.soak.workload import SoakSpec

    int8: Quantization | None = None
    if from_results is not None:
        deployed = _deployed("soak", model, from_results, device, precision)
        config, int8 = deployed.config, deployed.quantization
    elif streams is None or nireq is None:
        raise BadInputError("soak: give --streams and --nireq, or --from a results file to soak its recommendation")
    else:
        config = one_config(one_device(read_devices(device), "soak"), one_precision(precision, "soak"), batch,
                            streams, nireq)
    spec = SoakSpec(model=model, out=_out(out_path, from_results), config=config, seconds=seconds, window_s=window,
                    shapes=parse_shapes(shape), int8=int8)
    if plot_dir is not None:
        output_folder(plot_dir, Given("--out-dir"))
    interrupted = _soak_in_progress(spec)
    found = latest_soak(spec.out)
    if found is None:  # stopped before the soak began
        raise typer.Exit(EXIT_INTERRUPTED)
    drift, environment = found
    figure = _soak_figure(drift, environment, plot_dir) if plot_dir is not None else None
    print_sections(out, [soak_section(drift, figure)], titles=False)
    if interrupted:
        err.print(f"interrupted: {len(drift.soak.windows)} windows are kept in {spec.out}")
        raise typer.Exit(EXIT_INTERRUPTED)


def _soak_in_progress(spec: SoakSpec) -> bool:
    """Run the soak under a progress bar that words each window; whether Ctrl-C ended it (its windows are kept)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from ov_tuner.workloads.sweep.present.words.edge import soak_window_line
    from ov_tuner.workloads.sweep.soak.job import run_soak

    columns = (TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn())
    try:
        with ctrl_c_interrupts(), Progress(*columns, console=err, transient=True) as progress:
            task = progress.add_task(f"soaking {spec.config.label()}", total=spec.seconds)

            def seen(w: SoakWindow) -> None:
                progress.update(task, completed=w.start_s + w.window.seconds, description=soak_window_line(w))

            run_soak(spec, seen, say_quantizing)
    except KeyboardInterrupt:
        return True
    return False


def _soak_figure(drift: SoakDrift, environment: Environment, plot_dir: Path) -> Path | None:
    """The soak's figure in `plot_dir`, where it has two windows or more to draw."""
    if len(drift.soak.windows) < 2:
        return None
    from ov_tuner.present.drawing import save_figure
    from ov_tuner.workloads.sweep.present.edge_figures import soak_figure  # imports matplotlib

    return save_figure(soak_figure(drift, environment), plot_dir, "soak")


def _out(out_path: Path | None, from_results: Path | None) -> Path:
    return out_path or from_results or Path("results.db")


def _configs(model: Path, device: list[str] | None, precision: str, streams: str | None, nireq: str | None,
             from_results: Path | None, top: int) -> tuple[tuple[PointConfig, ...], Quantization | None]:
    """The configurations a capacity run takes, and the INT8 IR a results file recorded: every combination of the
    flags, or the best of a results file."""
    from ov_tuner.deployable.configs import Asked, grid_configs

    if from_results is not None:
        if streams is not None or nireq is not None:
            raise BadInputError("capacity: give either --from or --streams/--nireq, not both")
        deployed = _deployed("capacity", model, from_results, device, precision, top)
        return tuple(p.config for p in deployed.batch_one), deployed.quantization
    if streams is None or nireq is None:
        raise BadInputError("capacity: give --streams and --nireq (e.g. --streams 1,2 --nireq 2,4), or --from a "
                            "results file to take its best configurations")
    asked = Asked(read_devices(device), parse_precisions(precision), parse_counts(streams, "--streams", False) or (),
                  parse_counts(nireq, "--nireq", False) or (), int8=int8_asked(precision))
    return grid_configs(asked), None


def _from_alone(command: str, device: list[str] | None, precision: str) -> None:
    """--from takes the device and precision with the configuration the results file answered."""
    if device is not None or precision.strip().lower() != AUTO:
        raise BadInputError(f"{command}: --from runs the configurations the results file answered, device and "
                            "precision included; leave out --device and --precision, or --from")


def _deployed(command: str, model: Path, from_results: Path, device: list[str] | None, precision: str,
              top: int = 1) -> Deployed:
    """What the --from file deploys, checked to be a sweep of `model` before anything runs or is written into it."""
    from ov_tuner.deployable.deployed import FROM_FLAG, deployed_from
    from ov_tuner.devices.modelfile import open_model_source

    _from_alone(command, device, precision)
    return deployed_from(from_results, open_model_source(model), FROM_FLAG, top)
