"""The pipeline answer's blocks: its rows, where a frame's time goes per stage, the head-to-head rounds, every split
the search tried, and the forms to run it in. They render the answer record (ov_tuner.workloads.pipeline.answer)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ov_tuner.present.document import Block, Code, Facts, Paragraph, Table, Tone, table
from ov_tuner.present.servers import OVMS_MODELS
from ov_tuner.workloads.pipeline.answer_record import PipelineAnswer
from ov_tuner.workloads.pipeline.present.forms import pipeline_dlstreamer, pipeline_ovms, pipeline_python
from ov_tuner.workloads.pipeline.present.words import (
    origin_text,
    pipeline_rows,
    split_text,
    stage_text,
    tried_cameras_text,
)


@dataclass(frozen=True)
class PipelineFigures:
    """The figure files a pipeline report shows (ov_tuner.workloads.pipeline.present.figures draws them)."""

    cameras: Path
    stages: Path


def pipeline_facts(answer: PipelineAnswer) -> Facts:
    """The answer block: green where its search finished."""
    return Facts(tuple(pipeline_rows(answer)), Tone.GOOD if answer.finished else Tone.WARN)


def stages_table(answer: PipelineAnswer) -> Table:
    """Per stage, the decoder first: runs per frame, time at work and waiting per run and per frame, and the share
    of its slots at work, at the camera count that overloaded the answer."""
    rows = []
    for s in answer.shares:
        work, wait = s.busy_ms_per_frame, s.wait_ms_per_frame
        name = f"{s.name} (bottleneck)" if s.name == answer.bottleneck else s.name
        rows.append([name, f"{s.runs_per_frame:.3g}", f"{s.busy_ms:.2f}", f"{s.wait_ms:.2f}", f"{work:.2f}",
                     f"{wait:.2f}", f"{s.utilisation:.0%}"])
    header = ("stage", "runs per frame", "at work per run (ms)", "waiting per run (ms)", "at work per frame (ms)",
              "waiting per frame (ms)", "slots busy")
    return table(header, rows, f"at {answer.overloaded_at} cameras", numeric=header[1:])


def rounds_table(answer: PipelineAnswer) -> Table:
    """The contenders measured side by side: the cameras each served in each pass and their mean, the frame rate
    per camera each held there, and the frames a second that makes in all (the mean over the passes)."""
    rows = [[origin_text(answer, r.origin, r.split), split_text(answer.pipeline, r.split, r.ran),
             " ".join(map(str, r.per_pass)), f"{r.mean:.1f}", " ".join(f"{f:.1f}" for f in r.per_pass_fps),
             f"{r.arrivals.mean():.0f}" if r.per_pass_fps else ""] for r in answer.rounds]
    header = ("contender", "split", "cameras per pass", "mean", "FPS each held", "frames/s in all")
    return table(header, rows, numeric=("mean", "frames/s in all"))


def tried_table(answer: PipelineAnswer) -> Table:
    """Every split the search tried, most cameras first."""
    tried = sorted(answer.tried, key=lambda t: -t.cameras)
    rows = [[split_text(answer.pipeline, t.split), origin_text(answer, t.origin, t.split),
             tried_cameras_text(t), str(t.trials)] for t in tried]
    return table(("split", "from", "cameras", "trials"), rows, numeric=("cameras", "trials"))


def solo_text(answer: PipelineAnswer) -> str:
    """Each model's solo-tuned setting, what the solo-tuned baseline runs together."""
    settings = [stage_text(stage, setting) for stage, setting in zip(answer.pipeline.stages, answer.solo, strict=True)]
    return "Each model tuned alone: " + " | ".join(settings)


def pipeline_deploy_blocks(answer: PipelineAnswer) -> list[Block]:
    """The split as a Python script, a DL Streamer line and an OVMS config."""
    return [Paragraph("Python (python3 pipeline.py --frames 300):"), Code(pipeline_python(answer), "python"),
            Paragraph("DL Streamer (one camera; the decoder's threads are GStreamer's):"),
            Code(pipeline_dlstreamer(answer), "bash"),
            Paragraph(f"OpenVINO Model Server config.json (each model in {OVMS_MODELS}/NAME/1/):"),
            Code(pipeline_ovms(answer), "json")]
