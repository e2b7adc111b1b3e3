"""Commands that explain a configuration: cold start and per-layer profile."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ov_tuner.commandline.app import (
    EXIT_INTERRUPTED,
    app,
    err,
    one_line_errors,
    out,
    read_devices,
    say_quantizing,
    stop_on_ctrl_c,
)
from ov_tuner.commandline.flags import one_device, one_precision, parse_shapes
from ov_tuner.commandline.renamed import PLOTS, Renamed, renamed_flags
from ov_tuner.errors import Given
from ov_tuner.present.terminal import print_sections
from ov_tuner.schema import AUTO
from ov_tuner.store.destinations import output_folder
from ov_tuner.workloads.sweep.commands.options import (
    Count,
    Devices,
    ModelArgument,
    OnePrecision,
    ResultsOut,
    ShapeOption,
)

renamed_flags("profile", {"--time": Renamed("--seconds"), **PLOTS})


@app.command()
@one_line_errors
def coldstart(
    model: ModelArgument,
    device: Devices = None,
    precision: OnePrecision = AUTO,
    batch: Count = 1,
    streams: Count = 1,
    repeats: Annotated[int, typer.Option(min=1, help="Fresh processes per figure.")] = 5,
    shape: ShapeOption = None,
    out_path: ResultsOut = Path("results.db"),
) -> None:
    """Why the first inference is slow: read, compile (with and without CACHE_DIR), first and steady inference;
    Ctrl-C keeps the samples taken."""
    from ov_tuner.deployable.configs import one_config
    from ov_tuner.workloads.sweep.coldstart.job import ColdStartSpec, run_coldstart
    from ov_tuner.workloads.sweep.present.documents import coldstart_section

    config = one_config(one_device(read_devices(device), "coldstart"), one_precision(precision, "coldstart"), batch,
                        streams, 1)
    spec = ColdStartSpec(model=model, out=out_path, device=config.device, precision=config.precision, batch=batch,
                         streams=streams, shapes=parse_shapes(shape), repeats=repeats)
    with stop_on_ctrl_c("sample") as stop:
        cold = run_coldstart(spec, say_quantizing, stop)
    if cold.samples:
        print_sections(out, [coldstart_section(cold)], titles=False)
    if stop.is_set():
        err.print(f"interrupted: {len(cold.samples)} of {repeats} samples are kept in {out_path}")
        raise typer.Exit(EXIT_INTERRUPTED)


@app.command()
@one_line_errors
def profile(
    model: ModelArgument,
    device: Devices = None,
    precision: OnePrecision = AUTO,
    streams: Count = 1,
    nireq: Count = 1,
    batch: Count = 1,
    seconds: Annotated[float, typer.Option(min=0.05, help="Seconds of inferences to profile.")] = 2.0,
    top: Annotated[int, typer.Option(min=1, help="Layers in the table and the chart.")] = 15,
    shape: ShapeOption = None,
    out_path: ResultsOut = Path("results.db"),
    plot_dir: Annotated[Path | None, typer.Option("--out-dir", help="Also draw the top layers in this folder.")]
    = None,
) -> None:
    """Per-layer time from OpenVINO's counters, by layer type and by layer, with the kernels that ran."""
    from ov_tuner.deployable.configs import one_config
    from ov_tuner.workloads.sweep.present.documents import profile_section
    from ov_tuner.workloads.sweep.profile.job import run_profile

    config = one_config(one_device(read_devices(device), "profile"), one_precision(precision, "profile"), batch,
                        streams, nireq)
    if plot_dir is not None:
        output_folder(plot_dir, Given("--out-dir"))
    result = run_profile(model, config, seconds, out_path, parse_shapes(shape), quantizing=say_quantizing)
    figure = None
    if plot_dir is not None:
        from ov_tuner.workloads.sweep.present.figures import save_profile_figure  # imports matplotlib

        figure = save_profile_figure(result, model.stem, plot_dir, top)
    print_sections(out, [profile_section(result, top, figure)], titles=False)
