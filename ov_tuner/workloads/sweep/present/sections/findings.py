"""What the analysis found beside the answer, as document blocks: saturation, a baseline that beat the search,
precision comparisons and output accuracy, virtual devices against their members, diagnostics, the environment. They
word the findings record (ov_tuner.analyse.findings) and the stored results, and compute nothing."""

from __future__ import annotations

from ov_tuner import __version__
from ov_tuner.analyse.accuracy import TOP_BOXES
from ov_tuner.analyse.findings import Findings
from ov_tuner.analyse.precisions import PrecisionComparison
from ov_tuner.present.document import Block, Bullets, Paragraph, Table, Tone, table
from ov_tuner.present.words.box import box_text
from ov_tuner.present.words.numbers import cosine_text
from ov_tuner.schema import Precision
from ov_tuner.store.results import StoredResults
from ov_tuner.workloads.sweep.present.words.accuracy import precision_cost_lines, speed_text
from ov_tuner.workloads.sweep.present.words.findings import (
    comparison_notes,
    comparison_text,
    hint_effect_text,
    inconsistency_text,
    saturation_text,
    virtual_text,
)
from ov_tuner.workloads.sweep.present.words.measurement import diagnostic_text, how_measured_text
from ov_tuner.workloads.sweep.present.words.quantization import SPEED_ONLY


def saturation_blocks(findings: Findings) -> list[Block]:
    """Where more streams or requests stop paying, and any baseline that beat the best searched point."""
    found = [saturation_text(s) for s in findings.saturation]
    beaten = [f"not the best: {inconsistency_text(i)}" for i in findings.beaten]
    blocks: list[Block] = [Bullets(tuple(found))]
    return blocks + ([Bullets(tuple(beaten), Tone.BAD)] if beaten else [])


def comparison_blocks(c: PrecisionComparison) -> list[Block]:
    notes = comparison_notes(c)
    return [Paragraph(comparison_text(c)),
            Bullets(tuple(notes)) if notes else Paragraph("Both precisions ran as asked.")]


def precision_cost_bullets(results: StoredResults, findings: Findings) -> Bullets:
    """Per device, precision and batch: what ran, its speed against fp32, and what its outputs lose."""
    return Bullets(tuple(precision_cost_lines(results.accuracies, findings.speeds, findings.ran,
                                              findings.int8_vs_float, results.quantization)))


def accuracy_table(results: StoredResults, findings: Findings) -> Table:
    speeds = findings.speeds
    quantization = results.quantization is not None and results.quantization.speed_only
    rows = []
    for a in results.accuracies:
        pace = "reference" if a.precision is Precision.FP32 else speed_text(speeds.get((a.device, a.precision,
                                                                                          a.batch)))
        rows.append([a.device, a.precision.value, str(a.batch), pace,
                     cosine_text(a.cosine) if a.cosine is not None else "-",
                     f"{a.top1:.1%}" if a.top1 is not None else "-",
                     f"{a.top_boxes:.1%}" if a.top_boxes is not None else "-",
                     f"{a.mask_iou:.1%}" if a.mask_iou is not None else "-",
                     f"{a.max_abs:.3g}" if a.max_abs is not None else "-", str(a.inputs),
                     a.error or (SPEED_ONLY if a.precision is Precision.INT8 and quantization else "")])
    return table(("device", "precision", "batch", "speed", "cosine", "top-1 agreement", f"top-{TOP_BOXES} boxes",
                  "mask IoU", "max abs error", "inputs", "note"), rows, numeric=("inputs",))


def virtual_bullets(findings: Findings) -> Bullets | None:
    return Bullets(tuple(virtual_text(v) for v in findings.virtual)) if findings.virtual else None


def diagnostic_blocks(results: StoredResults, findings: Findings, verbose: bool = False) -> list[Block]:
    """How the figures were measured, every warning with what to do, what a hint sets besides streams (from the
    round), and what native code wrote while compiling."""
    warnings = [diagnostic_text(d) for d in findings.diagnostics]
    warnings += [f"hint sets more than streams: {hint_effect_text(e)}" for e in findings.hint_effects]
    blocks: list[Block] = [Paragraph(how_measured_text(findings.measured))]
    blocks.append(Bullets(tuple(warnings), Tone.WARN) if warnings else Paragraph("No warnings."))
    return blocks + native_output_blocks(results, verbose)


def native_output_blocks(results: StoredResults, verbose: bool) -> list[Block]:
    """One line where OpenVINO's plugins or drivers wrote to stdout or stderr while compiling; each text with
    --verbose."""
    logged = {p.compile.key: p.compile.native_log for p in results.points if p.compile and p.compile.native_log}
    if not logged:
        return []
    first = next(iter(logged.values())).splitlines()[0][:120]
    said = f"native output: {len(logged)} compiles wrote to stdout or stderr while compiling (first line: {first})"
    blocks: list[Block] = [Paragraph(said + ("" if verbose else "; `ov-tuner --verbose show` prints it"))]
    if verbose:
        blocks += [Paragraph(f"{k.device} {k.precision.value} batch {k.batch} {k.mode.value} "
                             f"{k.streams or ''}:\n{text}") for k, text in logged.items()]
    return blocks


def environment_table(results: StoredResults) -> Table:
    env = results.environment
    rows = [["model", f"{env.model_name} ({env.model_path})"], ["model sha256", env.model_sha256],
            ["OpenVINO", env.ov_version], ["ov-tuner", f"{env.ov_tuner_version} (report by {__version__})"],
            ["host", env.host], ["CPU", f"{env.cpu_model}, {env.cores} cores"], ["box", box_text(env.box)],
            ["Python", env.python],
            *[[f"device {d.name}", f"{d.full_name}; default precision {d.default_precision}"]
              for d in results.devices.values()]]
    return table(("", "value"), rows)
