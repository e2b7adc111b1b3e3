"""What is here to tune: devices, the zoo of reference models, versions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ov_tuner import __version__
from ov_tuner.commandline.app import app, one_line_errors, out
from ov_tuner.commandline.renamed import FOLDER, RenamedFlagsGroup, renamed_flags
from ov_tuner.devices.box import read_box
from ov_tuner.errors import Given
from ov_tuner.measure import host
from ov_tuner.present.terminal import print_blocks
from ov_tuner.present.words.box import box_line
from ov_tuner.store.destinations import output_folder

renamed_flags("zoo build", FOLDER)


@app.command()
@one_line_errors
def devices() -> None:
    """List the OpenVINO devices present, with the properties that shape a sweep, and the box this process runs in:
    its CPU quota, cpuset and memory limit, and how busy other processes keep the CPUs."""
    from ov_tuner.analyse.devices import device_listings
    from ov_tuner.devices.runtime import Runtime
    from ov_tuner.present.inventory import devices_table

    start = host.sample()  # other processes' load, over the time the devices take to list
    runtime = Runtime()
    print_blocks(out, devices_table(device_listings(runtime.device_info(d) for d in runtime.available_devices())))
    out.print(box_line(read_box(), host.foreign_load_since(start)), highlight=False, soft_wrap=True)


zoo_app = typer.Typer(help="Reference architectures built locally with deterministic weights.", no_args_is_help=True,
                      cls=RenamedFlagsGroup)
app.add_typer(zoo_app, name="zoo")


@zoo_app.command("list")
@one_line_errors
def zoo_list() -> None:
    """Every zoo model with its inputs, parameters and FLOPs per batch-1 inference."""
    from ov_tuner.model.zoo import zoo_entries
    from ov_tuner.present.inventory import zoo_table

    print_blocks(out, zoo_table(zoo_entries()))


@zoo_app.command("build")
@one_line_errors
def zoo_build(
    name: Annotated[str, typer.Argument(help="A name from `ov-tuner zoo list`.")],
    out_dir: Annotated[Path, typer.Option("--out-dir", help="Folder for the IR (.xml and .bin).")]
    = Path("models"),
) -> None:
    """Write a zoo model as an OpenVINO IR with an FP32 body and a dynamic batch."""
    from ov_tuner.model.zoo import build_zoo_model

    path, stats = build_zoo_model(name, output_folder(out_dir, Given("--out-dir")))
    out.print(f"wrote {path}: {stats.parameters / 1e6:.2f} M parameters, {stats.flops / 1e9:.2f} GFLOPs per "
              "batch-1 inference")


@app.command()
def version() -> None:
    """Print the ov-tuner and OpenVINO versions."""
    import openvino as ov

    out.print(f"ov-tuner {__version__}, OpenVINO {ov.get_version()}")
