"""What each command shows, as one document of sections, built from the same section builders: `show` (everything),
the end of a sweep (the answer first, one screen), `recommend` (the answer and the forms to deploy it), the
report (the answer, then the figures, then the detail) and a comparison of files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ov_tuner.analyse.answer import Answer
from ov_tuner.analyse.capacity import Served
from ov_tuner.analyse.compare import Comparison
from ov_tuner.analyse.drift import SoakDrift
from ov_tuner.analyse.findings import Findings
from ov_tuner.analyse.neighbours import Neighbours
from ov_tuner.present.document import Block, Bullets, Image, Paragraph, Section, Tone
from ov_tuner.present.words.box import box_text
from ov_tuner.schema import ColdStart, PointConfig, Profile
from ov_tuner.store.results import StoredResults
from ov_tuner.workloads.sweep.present.figure_files import WrittenFigures
from ov_tuner.workloads.sweep.present.sections.answer import answer_detail, answer_facts, deploy_blocks
from ov_tuner.workloads.sweep.present.sections.findings import (
    accuracy_table,
    comparison_blocks,
    diagnostic_blocks,
    environment_table,
    precision_cost_bullets,
    saturation_blocks,
    virtual_bullets,
)
from ov_tuner.workloads.sweep.present.sections.jobs import capacity_table, coldstart_table, profile_tables
from ov_tuner.workloads.sweep.present.sections.tables import (
    baselines_table,
    best_table,
    comparison_table,
    headtohead_table,
    points_table,
)
from ov_tuner.workloads.sweep.present.words.answer import recommendation_text
from ov_tuner.workloads.sweep.present.words.edge import capacity_summary, coldstart_text, soak_lines
from ov_tuner.workloads.sweep.present.words.findings import best_elsewhere_text, difference_text
from ov_tuner.workloads.sweep.present.words.neighbours import neighbours_lines
from ov_tuner.workloads.sweep.present.words.notices import summary_lines
from ov_tuner.workloads.sweep.summary import SweepSummary

ANSWER = "What to deploy"


def answer_section(answer: Answer | None, detail: bool = True, deploy: bool = False) -> Section:
    """The answer block first; with `detail`, the verdict in full and every gain; with `deploy`, the snippets."""
    if answer is None:
        return Section(ANSWER, (Paragraph("No explicit configuration was measured: nothing to deploy.", Tone.WARN),))
    blocks: list[Block] = [answer_facts(answer)]
    blocks += answer_detail(answer.recommendation) if detail else []
    blocks += deploy_blocks(answer) if deploy else []
    return Section(ANSWER, tuple(blocks))


def sweep_ending(answer: Answer | None, summary: SweepSummary) -> list[Section]:
    """What a sweep ends with: what it did in a few lines, then the answer block (the rest is in `show`)."""
    box = [f"measured in: {box_text(answer.box)}"] if answer is not None and answer.box is not None else []
    return [Section("", tuple(Paragraph(line) for line in [*summary_lines(summary), *box])),
            answer_section(answer, detail=False)]


def recommend_document(answer: Answer) -> list[Section]:
    """`recommend`: the answer under its budget, its gains, and the forms to deploy it in."""
    return [answer_section(answer, deploy=True)]


def show_document(results: StoredResults, answer: Answer | None, findings: Findings, verbose: bool = False,
                  ) -> list[Section]:
    """Everything the file holds, the answer (`answer`, the record of its default answer) first, then what the
    analysis found (`findings`)."""
    sections = [answer_section(answer), Section("Every point", (points_table(results),)),
                Section("Best per device and precision", (best_table(findings.best),))]
    head = headtohead_table(results)
    if head is not None:
        sections.append(Section("Head to head", (head,)))
    sections.append(Section("Saturation", tuple(saturation_blocks(findings))))
    if results.accuracies:
        sections.append(Section("What each precision costs", (precision_cost_bullets(results, findings),)))
    virtual = virtual_bullets(findings)
    if virtual is not None:
        sections.append(Section("Virtual devices against their members", (virtual,)))
    sections += _job_sections(results, findings, figures=None)
    sections.append(Section("Diagnostics", tuple(diagnostic_blocks(results, findings, verbose))))
    return sections


def report_document(results: StoredResults, answer: Answer | None, findings: Findings, figures: WrittenFigures,
                    ) -> list[Section]:
    """The report: the answer and how to deploy it, then the figures, then the detail."""
    sections = [answer_section(answer, deploy=True)]
    sections.append(Section("Heatmaps: streams x infer requests", tuple(Image(p, p.stem) for p in figures.heatmaps)))
    for title, path, alt in (("Throughput against latency: the Pareto front", figures.pareto, "Pareto front"),
                             ("Batch size and devices", figures.batch, "FPS and latency against batch")):
        if path is not None:
            sections.append(Section(title, (Image(path, alt),)))
    if findings.comparisons:
        sections.append(Section("Precisions against each other", tuple(
            block for c, path in zip(findings.comparisons, figures.precision, strict=True)
            for block in (*comparison_blocks(c), Image(path, path.stem)))))
    head = headtohead_table(results)
    if head is not None:
        sections.append(Section("Head to head", (head,)))
    sections += [Section("Best configurations, as the search measured them", (best_table(findings.best),)),
                 Section("Saturation: where more streams or requests stop paying", tuple(saturation_blocks(findings))),
                 Section("OpenVINO's own choices: the baselines", (baselines_table(findings.baselines),))]
    if results.accuracies:
        sections.append(Section("What each precision costs: speed and output accuracy",
                                (accuracy_table(results, findings),)))
    virtual = virtual_bullets(findings)
    if virtual is not None:
        sections.append(Section("OpenVINO's virtual devices against their members tuned alone",
                                (virtual, *(Image(p, p.stem) for p in figures.virtual))))
    sections += _job_sections(results, findings, figures)
    sections += [Section("Every point", (points_table(results),)),
                 Section("Environment", (environment_table(results),)),
                 Section("Diagnostics", tuple(diagnostic_blocks(results, findings)))]
    return sections


def _job_sections(results: StoredResults, findings: Findings, figures: WrittenFigures | None) -> list[Section]:
    """Cold starts, profiles, cameras served and soaks, where the file holds them (with figures in the report)."""
    sections = [coldstart_section(cold) for cold in results.coldstarts]
    for i, prof in enumerate(results.latest_profiles()):
        sections.append(profile_section(prof, 10, figures.profiles[i] if figures and i < len(figures.profiles)
                                        else None))
    if results.capacities:
        sections.append(capacity_section(findings.served, figures.capacity if figures else None))
    soaks = [s for s in findings.soaks if len(s.soak.windows) >= 2]
    for i, soak in enumerate(soaks):
        sections.append(soak_section(soak, figures.soaks[i] if figures and i < len(figures.soaks) else None))
    return sections


def coldstart_section(cold: ColdStart) -> Section:
    """`coldstart`, and a file's cold starts: where the first inference's time goes."""
    return Section("Cold start: why the first inference is slow", (Paragraph(coldstart_text(cold)),
                                                                    coldstart_table(cold)))


def profile_section(prof: Profile, top: int, figure: Path | None = None) -> Section:
    """`profile`, and a file's profiles: time per layer type and per layer, the `top` of each."""
    blocks: list[Block] = list(profile_tables(prof, top))
    if figure is not None:
        blocks.append(Image(figure, figure.stem))
    return Section("Per-layer profile", tuple(blocks))


def capacity_section(served: Sequence[Served], figure: Path | None = None) -> Section:
    """`capacity`, and a file's capacity runs: the cameras each configuration served (`served`, the latest run of
    each configuration and target)."""
    summary = capacity_summary(served)
    blocks: list[Block] = [*([Paragraph(summary)] if summary else []), capacity_table(served)]
    if figure is not None:
        blocks.append(Image(figure, "cameras served"))
    return Section("Cameras served: open-loop load", tuple(blocks))


def soak_section(found: SoakDrift, figure: Path | None = None) -> Section:
    """`soak`, and a file's soaks: whether one configuration held over minutes (`found`: the soak and its drift)."""
    blocks: list[Block] = [Bullets(tuple(soak_lines(found)))]
    if figure is not None:
        blocks.append(Image(figure, "FPS, p99 and clock over time"))
    return Section(f"Soak: {found.soak.config.label()}", tuple(blocks))


def neighbours_section(n: Neighbours, configuration: PointConfig, threads: int | None = None) -> Section:
    """`neighbours`: each copy's share beside the others, against one copy alone (each with `threads`
    INFERENCE_NUM_THREADS where the command set them)."""
    label = configuration.label() + (f", INFERENCE_NUM_THREADS {threads} each" if threads else "")
    return Section(f"Neighbours: {n.copies} copies side by side", (Bullets(tuple(neighbours_lines(n, label))),))


def comparison_document(comparison: Comparison, answers: list[Answer | None], figure: Path | None,
                        ) -> list[Section]:
    """Several results files on one page (`compare` in the terminal, the report of several files): their
    environments, each one's answer (`answers`, in the files' order), the shared configurations."""
    files = [f"file {i}: {f.path} ({f.environment.host}, {f.environment.cpu_model}, {f.environment.cores} cores, "
             f"OpenVINO {f.environment.ov_version.split('-')[0]}, {f.environment.model_name})"
             for i, f in enumerate(comparison.files, 1)]
    differs = [f"differs: {difference_text(*d)}" for d in comparison.differences]
    if len({f.environment.box.bounds if f.environment.box else None for f in comparison.files}) > 1:
        differs.append("differs: box: " + " | ".join(box_text(f.environment.box) for f in comparison.files))
    differs = differs or ["The environments match."]
    said = []
    for i, (f, answer) in enumerate(zip(comparison.files, answers, strict=True), 1):
        verdict = recommendation_text(answer.recommendation) if answer else "no explicit configuration measured"
        said.append(f"file {i} ({f.environment.host}): {verdict}")
    same: list[Block] = [comparison_table(comparison)]
    if figure is not None:
        same.append(Image(figure, "FPS per configuration and file"))
    same.append(Bullets(tuple([best_elsewhere_text(b) for b in comparison.bests]
                              + [f"only in file {i + 1}: {c.label()}" for i, c in comparison.only_in])))
    return [Section("Files", (Bullets(tuple(files)), Bullets(tuple(differs)))),
            Section("What to deploy, per file", (Bullets(tuple(said)),)),
            Section("The same configurations in every file", tuple(same))]
