"""The answer, first in every output: one block of labelled rows (what to deploy, its speed, its gain over
OpenVINO left alone, why it was chosen, the one caveat, where the details are); then, where there is room (show,
the report, recommend), every gain with its interval and the forms to deploy it in."""

from __future__ import annotations

from pathlib import Path

from ov_tuner.analyse.accuracy import accuracy_of
from ov_tuner.analyse.caveat import caveat
from ov_tuner.analyse.precisions import int8_against_fastest_float, precision_speeds
from ov_tuner.analyse.recommend import Recommendation
from ov_tuner.present.document import Block, Bullets, Code, Facts, Paragraph, Tone
from ov_tuner.present.formats import deploy_snippets
from ov_tuner.present.words.accuracy import breach_text, int8_trade_text
from ov_tuner.present.words.answer import gain_lines, recommendation_text, rule_text
from ov_tuner.present.words.short import (
    caveat_text,
    configuration_text,
    default_gain_text,
    details_text,
    held_back_text,
    precision_text,
    speed_text,
    why_text,
)
from ov_tuner.schema import Merged, PointConfig, Precision
from ov_tuner.store.results import StoredResults


def merged_precisions(results: StoredResults, device: str) -> list[Merged]:
    """The precisions this file's sweeps measured once, as fp32, on `device` and hold no point of."""
    swept = {p.config.precision for p in results.points if p.config.device == device}
    return [m for m in results.merged if m.device == device and m.precision not in swept]


def answer_facts(results: StoredResults, rec: Recommendation, path: Path | None = None) -> Facts:
    """The answer block."""
    rows = [("deploy", configuration_text(rec.winner)), ("speed", speed_text(rec))]
    default = default_gain_text(rec)
    if default is not None:
        rows.append(("vs default", default))
    rows.append(("why", why_text(rec)))
    precision = precision_text(rec, merged_precisions(results, rec.winner.config.device))
    if precision is not None:
        rows.append(("precision", precision))
    int8 = int8_row(results, rec.winner.config)
    if int8 is not None:
        rows.append(("int8", int8))
    if rec.held_back is not None:
        rows.append(("held back", held_back_text(rec.held_back, results.quantization, path or results.path)))
    rows += [("excluded", breach_text(b)) for b in rec.excluded if rec.held_back is None or b != rec.held_back.breach]
    rows.append(("caveat", caveat_text(caveat(rec, results.accuracies, results.points))))
    rows.append(("details", details_text(path or results.path)))
    return Facts(tuple(rows), Tone.GOOD if rec.confirmed else Tone.WARN)


def int8_row(results: StoredResults, deployed: PointConfig) -> str | None:
    """INT8's trade-off beside the deployed configuration (its device and --set properties, its batch), where int8
    was measured there: its speed against fp32 (and the fastest float precision) beside its agreement with FP32."""
    scope, batch = deployed.scope, deployed.batch
    if not any(p.config.heatmap_key == (scope, Precision.INT8, batch) for p in results.points if p.ok):
        return None
    speed = precision_speeds(results.points, results.confirmations).get((scope, Precision.INT8, batch))
    fastest_float = int8_against_fastest_float(results.points, results.confirmations).get((scope, batch))
    accuracy = accuracy_of(results.accuracies, deployed.device, Precision.INT8, batch)
    return int8_trade_text(speed, fastest_float, accuracy, results.quantization)


def answer_detail(rec: Recommendation) -> list[Block]:
    """The verdict in one sentence, the rule that chose, and every gain and precision ratio with its interval."""
    return [Paragraph(recommendation_text(rec)), Bullets((f"rule: {rule_text(rec)}", *gain_lines(rec)))]


def deploy_blocks(rec: Recommendation, results: StoredResults) -> list[Block]:
    """The configuration as compile_model properties in Python and as benchmark_app with its -load_config file, on
    the model the user gave (first, the command that makes the IR they load, where it is another), reshaped as the
    sweep compiled it."""
    source = results.environment.model_path
    snippets = deploy_snippets(rec.winner, source, results.quantization, given=results.inputs)
    notes = [Bullets(tuple(f"note: {n}" for n in snippets.notes), Tone.WARN)] if snippets.notes else []
    make = snippets.model.make
    first: list[Block] = ([Paragraph(f"First make {snippets.model.path} from {source}:"), Code(make, "bash")]
                          if make else [])
    return [*notes, *first, Paragraph("Python:"), Code(snippets.python, "python"),
            Paragraph("benchmark_app, with the -load_config file it reads:"), Code(snippets.benchmark_app, "bash")]
