"""The answer, first in every output: one block of labelled rows (what to deploy, its speed, its gain over
OpenVINO left alone, why it was chosen, the one caveat, where the details are); then, where there is room (show,
the report, recommend), every gain with its interval and the forms to deploy it in. It renders the answer record
(ov_tuner.analyse.answer) and computes nothing."""

from __future__ import annotations

from ov_tuner.analyse.answer import Answer
from ov_tuner.analyse.recommend import Recommendation
from ov_tuner.present.document import Block, Bullets, Code, Facts, Paragraph, Tone
from ov_tuner.present.formats import deploy_snippets
from ov_tuner.workloads.sweep.present.words.answer import gain_lines, recommendation_text, rule_text
from ov_tuner.workloads.sweep.present.words.short import answer_rows


def answer_facts(answer: Answer) -> Facts:
    """The answer block: green where a round confirmed it head to head."""
    return Facts(tuple(answer_rows(answer)), Tone.GOOD if answer.recommendation.confirmed else Tone.WARN)


def answer_detail(rec: Recommendation) -> list[Block]:
    """The verdict in one sentence, the rule that chose, and every gain and precision ratio with its interval."""
    return [Paragraph(recommendation_text(rec)), Bullets((f"rule: {rule_text(rec)}", *gain_lines(rec)))]


def deploy_blocks(answer: Answer) -> list[Block]:
    """The configuration as compile_model properties in Python and as benchmark_app with its -load_config file, on
    the model the user gave (first, the command that makes the IR they load, where it is another), reshaped as the
    sweep compiled it."""
    source = answer.model
    snippets = deploy_snippets(answer.recommendation.winner, source, answer.quantization, inputs=answer.input_shapes)
    notes = [Bullets(tuple(f"note: {n}" for n in snippets.notes), Tone.WARN)] if snippets.notes else []
    make = snippets.model.make
    first: list[Block] = ([Paragraph(f"First make {snippets.model.path} from {source}:"), Code(make, "bash")]
                          if make else [])
    return [*notes, *first, Paragraph("Python:"), Code(snippets.python, "python"),
            Paragraph("benchmark_app, with the -load_config file it reads:"), Code(snippets.benchmark_app, "bash")]
