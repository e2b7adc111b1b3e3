"""What `show`, `recommend` and the report print for a pipeline: its answer block, where a frame's time goes per
stage, the rounds side by side and every split tried, as sections of present/'s one document."""

from __future__ import annotations

from rich.console import Console

from ov_tuner.present.document import Block, Image, Paragraph, Section
from ov_tuner.present.terminal import print_sections
from ov_tuner.workloads.pipeline.answer_record import PipelineAnswer
from ov_tuner.workloads.pipeline.present.sections import (
    PipelineFigures,
    pipeline_deploy_blocks,
    pipeline_facts,
    rounds_table,
    solo_text,
    stages_table,
    tried_table,
)

PIPELINE_ANSWER = "What to run"


def pipeline_document(answer: PipelineAnswer, figures: PipelineFigures | None = None, deploy: bool = False,
                      ) -> list[Section]:
    """A pipeline's answer (`show`, and the report with its `figures` and the forms to `deploy` it in): the answer
    block, where a frame's time goes per stage, the rounds measured side by side, and every split tried."""
    sections = [Section(PIPELINE_ANSWER, (pipeline_facts(answer),))]
    if deploy:
        sections.append(Section("How to run it", tuple(pipeline_deploy_blocks(answer))))
    time: list[Block] = [stages_table(answer)]
    if figures is not None:
        time.append(Image(figures.stages, "time per frame per stage"))
    sections.append(Section("Where a frame's time goes", tuple(time)))
    rounds: list[Block] = [rounds_table(answer)] if answer.rounds else []
    if answer.solo:
        rounds.append(Paragraph(solo_text(answer)))
    if rounds:
        sections.append(Section("Side by side: the answer against the baselines", tuple(rounds)))
    tried: list[Block] = [tried_table(answer)]
    if figures is not None:
        tried.insert(0, Image(figures.cameras, "cameras served per split"))
    sections.append(Section("Every split tried", tuple(tried)))
    return sections


def print_pipeline(console: Console, answer: PipelineAnswer, full: bool = False) -> None:
    """A pipeline's answer in the terminal: the answer block alone (the end of a search), or `full`, the whole
    document (`show`)."""
    if full:
        print_sections(console, pipeline_document(answer))
    else:
        print_sections(console, [Section(PIPELINE_ANSWER, (pipeline_facts(answer),))], titles=False)


def pipeline_recommend_document(answer: PipelineAnswer) -> list[Section]:
    """`recommend` on a pipeline's file: its answer block and the forms to run it in."""
    return pipeline_document(answer, deploy=True)[:2]
