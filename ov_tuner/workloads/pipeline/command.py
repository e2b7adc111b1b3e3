"""`ov-tuner pipeline`: tune a chain of models sharing one device with the video decoder, for the most cameras."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ov_tuner.commandline.app import EXIT_INTERRUPTED, app, err, one_line_errors, out, say_quantizing, stop_on_ctrl_c
from ov_tuner.commandline.clock import ConsoleWatch, TimeBudgetOption
from ov_tuner.commandline.clock import time_budget as timed
from ov_tuner.commandline.renamed import ROUNDS, Renamed, renamed_flags
from ov_tuner.errors import BadInputError, Given
from ov_tuner.store.destinations import output_folder
from ov_tuner.workloads.pipeline.schema import Pipeline, PipelineStage, PipelineTrial, SoloPoint

if TYPE_CHECKING:
    from ov_tuner.workloads.pipeline.answer_record import PipelineAnswer

renamed_flags("pipeline", {**ROUNDS, "--report": Renamed("--out-dir")})


@app.command(epilog="The pipeline file, key by key: docs/usage.md, 'A pipeline'; every mistake in it is one line that "
             "names the key.")
@one_line_errors
def pipeline(
    file: Annotated[Path, typer.Argument(help="The pipeline file (TOML): the video, the stages, each camera's FPS "
                                         "and latency budget.")],
    out_path: Annotated[Path, typer.Option("--out", help="SQLite results file to store every trial in (rerun the "
                                           "same command to resume).")] = Path("pipeline.db"),
    seconds: Annotated[float, typer.Option(min=0.2, help="Seconds of arrivals counted per trial.")] = 3.0,
    lead_in: Annotated[float, typer.Option(min=0.0, help="Seconds of the same load before each trial, not "
                                           "counted.")] = 1.0,
    passes: Annotated[int, typer.Option(min=0, help="Passes side by side of the answer and both baselines, at most "
                                        "(0: none; an interval needs 2 or more).")] = 5,
    max_trials: Annotated[int, typer.Option(min=1, help="Trials of the search beyond its starting points.")] = 60,
    solo_seconds: Annotated[float, typer.Option(min=0.05, help="Seconds per window of each stage alone, for its "
                                                "solo-tuned setting (a stage with an answer file takes that).")] = 1.0,
    report_dir: Annotated[Path | None, typer.Option("--out-dir", help="Also write the report with its figures in "
                                                    "this folder.")] = None,
    time_budget: TimeBudgetOption = None,
) -> None:
    """Find how to share the device between the pipeline's models and its video decoder so that it serves the most
    cameras (each frame within the latency budget), against every model at its solo-tuned setting and every model at
    OpenVINO default, run together, measured side by side."""
    from ov_tuner.workloads.pipeline.job import run_pipeline
    from ov_tuner.workloads.pipeline.present.words_progress import solo_line, trial_line
    from ov_tuner.workloads.pipeline.workload import PipelineSpec

    budget = timed(time_budget)
    if passes == 1:
        raise BadInputError("--passes 1 gives no interval: give 0 for none, or 2 or more")
    if report_dir is not None:
        output_folder(report_dir, Given("--out-dir"))
    spec = PipelineSpec(file=file, out=out_path, seconds=seconds, lead_in_s=lead_in, passes=passes,
                        max_trials=max_trials, solo_s=solo_seconds)

    def solo(stage: PipelineStage, point: SoloPoint) -> None:
        out.print(solo_line(stage, point), highlight=False, soft_wrap=True)

    def seen(pipeline: Pipeline, trial: PipelineTrial) -> None:
        out.print(trial_line(pipeline, trial), highlight=False, soft_wrap=True)

    with stop_on_ctrl_c("trial") as stop, ConsoleWatch(out) as watch:
        answer = run_pipeline(spec, seen, solo, stop, say_quantizing, budget=budget, watch=watch)
    _finish(answer, out_path, report_dir, stop.is_set())


def _finish(answer: PipelineAnswer | None, results: Path, report_dir: Path | None, interrupted: bool) -> None:
    from ov_tuner.workloads.pipeline.present.document import print_pipeline
    from ov_tuner.workloads.pipeline.present.words import unservable_text

    if answer is None:
        if interrupted:
            err.print(f"interrupted before any trial; what was measured is kept in {results}")
            raise typer.Exit(EXIT_INTERRUPTED)
        raise BadInputError(f"{results} holds no pipeline trial; run `ov-tuner pipeline FILE --out {results}`")
    if answer.unservable and not interrupted:
        raise BadInputError(unservable_text(answer, str(results)))
    print_pipeline(out, answer)
    if report_dir is not None:
        from ov_tuner.workloads.pipeline.present.report import build_pipeline_report  # imports matplotlib

        for path in build_pipeline_report(answer, report_dir):
            out.print(f"wrote {path}", highlight=False)
    if interrupted:
        err.print(f"interrupted: the trials measured are kept in {results}; run the same command to resume")
        raise typer.Exit(EXIT_INTERRUPTED)
