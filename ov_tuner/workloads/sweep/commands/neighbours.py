"""`ov-tuner neighbours`: the deployed configuration as several copies side by side, against one copy alone."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ov_tuner.commandline.app import app, ctrl_c_interrupts, err, one_line_errors, out
from ov_tuner.commandline.renamed import ROUNDS, renamed_flags
from ov_tuner.present.terminal import print_sections
from ov_tuner.workloads.sweep.commands.options import ModelArgument

renamed_flags("neighbours", ROUNDS)


@app.command()
@one_line_errors
def neighbours(
    model: ModelArgument,
    from_results: Annotated[Path, typer.Option("--from", help="A results file of a sweep of this model: run the "
                                               "configuration it recommends.")],
    copies: Annotated[int, typer.Option("--neighbours", min=2, help="Copies side by side, each its own process, "
                                        "as that many deployed models on one box.")] = 2,
    passes: Annotated[int, typer.Option(min=2, help="Interleaved passes of one copy alone and all together.")] = 5,
    seconds: Annotated[float, typer.Option(min=0.1, help="Seconds per window.")] = 2.0,
    threads: Annotated[int | None, typer.Option(min=1, help="INFERENCE_NUM_THREADS for each copy (default: what "
                                                "the answer deploys).")] = None,
) -> None:
    """What each of several copies of the deployed configuration gets side by side (FPS and p90 against one copy
    alone, with intervals): the cost of co-locating models before deploying them."""
    from ov_tuner.analyse.neighbours import neighbours as neighbours_figures
    from ov_tuner.deployable.deployed import FROM_FLAG, deployed_from
    from ov_tuner.devices.modelfile import open_model_source
    from ov_tuner.workloads.sweep.neighbours.job import run_neighbours
    from ov_tuner.workloads.sweep.neighbours.workload import NeighboursSpec
    from ov_tuner.workloads.sweep.present.documents import neighbours_section

    # a model that is not there, or results of another, is one line before any copy starts
    config = deployed_from(from_results, open_model_source(model), FROM_FLAG).config
    err.print(f"starting {copies} copies of {config.label()} ...", highlight=False)
    with ctrl_c_interrupts():
        phases = run_neighbours(NeighboursSpec(model, from_results, copies, passes, seconds, threads))
    print_sections(out, [neighbours_section(neighbours_figures(phases), config, threads)])
