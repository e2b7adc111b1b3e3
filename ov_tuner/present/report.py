"""Reports from stored results: one self-contained HTML file (images embedded) and a Markdown summary.

Both render the same document, built once from the analysis: a list of sections made of paragraphs,
tables, code blocks and images.
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field
from pathlib import Path

from ov_tuner import __version__
from ov_tuner.analyse.baselines import baseline_gains, inconsistencies
from ov_tuner.analyse.capacity import capacity_summary, config_text, latest_served
from ov_tuner.analyse.compare import Comparison, matched_label
from ov_tuner.analyse.diagnostics import diagnostics, how_measured
from ov_tuner.analyse.points import baseline_points, best_per_device_precision, explicit_points, fastest
from ov_tuner.analyse.precisions import compare_precisions, precision_speeds
from ov_tuner.analyse.recommend import recommend
from ov_tuner.analyse.saturation import saturation
from ov_tuner.analyse.virtual import virtual_comparisons
from ov_tuner.devices.decisions import auto_batched
from ov_tuner.errors import OvTunerError
from ov_tuner.present.edge_text import soak_lines
from ov_tuner.present.formats import deploy_snippets
from ov_tuner.present.plots import WrittenFigures, comparison_figure, save_figure, write_figures
from ov_tuner.present.render import COLDSTART_FIGURES, latest_confirmations, ran
from ov_tuner.present.words import gain_lines, inconsistency_text, recommendation_text, rule_text
from ov_tuner.schema import Precision
from ov_tuner.stats.headtohead import HeadToHead
from ov_tuner.store.results import StoredResults


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Bullets:
    items: list[str]


@dataclass(frozen=True)
class Table:
    header: list[str]
    rows: list[list[str]]


@dataclass(frozen=True)
class Code:
    text: str
    language: str = ""


@dataclass(frozen=True)
class Image:
    path: Path
    alt: str


Block = Paragraph | Bullets | Table | Code | Image


@dataclass
class Section:
    title: str
    blocks: list[Block] = field(default_factory=list)


@dataclass(frozen=True)
class ReportFiles:
    html: Path
    markdown: Path
    images: list[Path]


def build_report(results: StoredResults, out_dir: Path) -> ReportFiles:
    """Write report.html, report.md and the figures they show into `out_dir`."""
    if not explicit_points(results.points):
        raise OvTunerError(f"{results.path} has no measured point to report on; run `ov-tuner sweep` first")
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = write_figures(results, out_dir)
    sections = _sections(results, figures)
    title = f"ov-tuner report: {results.environment.model_name}"
    html_path, md_path = out_dir / "report.html", out_dir / "report.md"
    html_path.write_text(_to_html(title, sections), encoding="utf-8")
    md_path.write_text(_to_markdown(title, sections, out_dir), encoding="utf-8")
    return ReportFiles(html_path, md_path, figures.all())


def build_comparison_report(comparison: Comparison, out_dir: Path) -> ReportFiles:
    """One page for several results files (two hosts, a fleet, two OpenVINO versions): the environments, each
    file's answer, and every configuration measured in all of them side by side."""
    out_dir.mkdir(parents=True, exist_ok=True)
    figure = save_figure(comparison_figure(comparison), out_dir, "compare") if comparison.matched else None
    sections = [Section("Files", [Table(["file", "path", "host", "CPU", "OpenVINO", "model"], [
        [str(i), str(f.path), f.environment.host, f"{f.environment.cpu_model}, {f.environment.cores} cores",
         f.environment.ov_version.split("-")[0], f.environment.model_name]
        for i, f in enumerate(comparison.files, 1)]),
        Bullets([f"differs: {d}" for d in comparison.differences] or ["The environments match."])])]
    answers = Section("What to deploy, per file")
    for i, f in enumerate(comparison.files, 1):
        try:
            rec = recommend(f.points, confirmations=f.confirmations)
            answers.blocks.append(Paragraph(f"File {i} ({f.environment.host}): {recommendation_text(rec)}"))
        except OvTunerError as e:
            answers.blocks.append(Paragraph(f"File {i} ({f.environment.host}): {e}"))
    sections.append(answers)
    header = ["configuration", *[f"file {i} FPS" for i in range(1, len(comparison.files) + 1)],
              *[f"file {i}/1" for i in range(2, len(comparison.files) + 1)]]
    rows = [[matched_label(m), *(_fmt(p.fps) for p in m.points), *(f"{r:.2f}x" for r in m.fps_ratios()[1:])]
            for m in comparison.matched]
    same = Section("The same configurations in every file", [Table(header, rows)])
    if figure is not None:
        same.blocks.append(Image(figure, "FPS per configuration and file"))
    same.blocks.append(Bullets([b.reason for b in comparison.bests]
                               + [f"Only in file {i + 1}: {c.label()}" for i, c in comparison.only_in]))
    sections.append(same)
    title = f"ov-tuner comparison: {comparison.files[0].environment.model_name}, {len(comparison.files)} files"
    html_path, md_path = out_dir / "report.html", out_dir / "report.md"
    html_path.write_text(_to_html(title, sections), encoding="utf-8")
    md_path.write_text(_to_markdown(title, sections, out_dir), encoding="utf-8")
    return ReportFiles(html_path, md_path, [figure] if figure else [])


def _fmt(value: float) -> str:
    return f"{value:.1f}" if value >= 10 else f"{value:.3g}"


def _sections(results: StoredResults, figures: WrittenFigures) -> list[Section]:
    env, points = results.environment, results.points
    sections = []

    environment = Section("Environment")
    environment.blocks.append(Table(["", "value"], [
        ["model", f"{env.model_name} ({env.model_path})"], ["model sha256", env.model_sha256],
        ["OpenVINO", env.ov_version], ["ov-tuner", f"{env.ov_tuner_version} (report by {__version__})"],
        ["host", env.host], ["CPU", f"{env.cpu_model}, {env.cores} cores"], ["Python", env.python],
        *[[f"device {d.name}", f"{d.full_name}; default precision {d.default_precision}"]
          for d in results.devices.values()],
    ]))
    sections.append(environment)

    answer = Section("What to deploy")
    rec = recommend(points, confirmations=results.confirmations)
    snippets = deploy_snippets(rec.winner)
    word = "" if rec.confirmed else "Not confirmed head to head: "
    rule = [f"Rule: {rule_text(rec)}."]
    answer.blocks += [Paragraph(word + recommendation_text(rec)),
                      Bullets(rule + gain_lines(rec) + list(snippets.notes)),
                      Paragraph("Python:"), Code(snippets.python, "python"),
                      Paragraph("benchmark_app:"), Code(snippets.benchmark_app, "bash"),
                      Paragraph("benchmark_app -load_config file:"), Code(snippets.load_config, "json"),
                      Paragraph("Under a latency budget: `ov-tuner recommend RESULTS --max-latency MS`.")]
    sections.append(answer)

    for confirmation in latest_confirmations(results.confirmations):
        head = HeadToHead.of(confirmation)
        if head is None:
            continue
        leader = max(head.figures, key=lambda f: f.fps)
        sections.append(Section("Head to head", [
            Paragraph(f"The contenders measured again, interleaved: {leader.windows} passes of "
                      f"{confirmation.window_s:g} s windows, alternating direction, so that the host's drift hits "
                      "them alike. Ratios to the leader with 95% intervals (paired t over the passes)."),
            Table(["device", "precision", "batch", "configuration", "FPS", "p90 ms", "vs the leader (95%)"],
                  [[f.contender.config.scope, f.contender.config.precision.value, str(f.contender.config.batch),
                    f.contender.label(),
                    _fmt(f.fps), _fmt(f.latency_ms(90)),
                    "leader" if f is leader else head.ratio(f.contender, leader.contender).as_gain()]
                   for f in sorted(head.figures, key=lambda f: -f.fps)])]))

    best = Section("Best configurations, as the search measured them")
    rows = []
    for b in best_per_device_precision(points):
        p = b.point
        gains = "; ".join(f"{g.fps_gain:+.1%} vs {g.baseline.config.mode.hint_name}"
                          for g in baseline_gains(p, points))
        cpu = p.measurement.cpu_ms_per_request if p.measurement else None
        rows.append([b.device, b.precision.value, ran(p), str(p.config.batch), str(p.config.streams),
                     str(p.config.nireq), _fmt(p.fps), _fmt(p.latency_ms(50)), _fmt(p.latency_ms(90)),
                     f"{cpu:.2f}" if cpu is not None else "-", gains or "-"])
    best.blocks.append(Table(["device", "precision", "ran", "batch", "streams", "nireq", "FPS", "median ms",
                              "p90 ms", "CPU ms/req", "vs OpenVINO hints"], rows))
    sections.append(best)

    sat = Section("Saturation: where more streams or requests stop paying")
    sat.blocks.append(Bullets([s.reason for s in saturation(points, devices=results.devices)]
                              + [f"Not the best: {inconsistency_text(i)}" for i in inconsistencies(points)]))
    sections.append(sat)

    hints = Section("OpenVINO's own choice: performance-hint baselines")
    baselines = baseline_points(points)
    if baselines:
        hint_rows = []
        for base in baselines:
            tuned = fastest(p for p in explicit_points(points) if p.config.heatmap_key == base.config.heatmap_key)
            gain = f"{tuned.fps / base.fps - 1:+.1%} ({tuned.config.streams}x{tuned.config.nireq})" if tuned else "-"
            batched = "yes" if base.compile is not None and auto_batched(base.compile.read_back) else "no"
            hint_rows.append([base.config.scope, base.config.precision.value, str(base.config.batch),
                              base.config.mode.hint_name, str(base.streams), str(base.nireq), batched, _fmt(base.fps),
                              _fmt(base.latency_ms(90)), gain])
        hints.blocks.append(Table(["device", "precision", "batch", "hint", "streams chosen", "nireq (optimal)",
                                   "auto-batched", "FPS", "p90 ms", "best tuned gain (measured apart)"], hint_rows))
    else:
        hints.blocks.append(Paragraph("No baselines were measured (the sweep ran with --no-baselines)."))
    sections.append(hints)

    heatmaps = Section("Heatmaps: streams x infer requests")
    heatmaps.blocks += [Image(path, path.stem) for path in figures.heatmaps]
    sections.append(heatmaps)

    if figures.pareto is not None:
        sections.append(Section("Throughput against latency: the Pareto front",
                                [Image(figures.pareto, "Pareto front")]))

    comparisons = [c for numerator in (Precision.FP16, Precision.BF16)
                   for c in compare_precisions(points, numerator, confirmations=results.confirmations)]
    if comparisons:
        precision = Section("FP16 against FP32")
        for c, path in zip(comparisons, figures.precision, strict=True):
            precision.blocks += [Paragraph(c.reason), Bullets(list(c.notes)) if c.notes else Paragraph(
                "Both precisions ran as asked."), Image(path, path.stem)]
        sections.append(precision)

    if results.accuracies:
        speeds = precision_speeds(points, results.confirmations)
        rows = []
        for a in results.accuracies:
            pace = speeds.get((a.device, a.precision, a.batch), "reference" if a.precision is Precision.FP32 else "-")
            rows.append([a.device, a.precision.value, str(a.batch), pace,
                         f"{a.cosine:.5f}" if a.cosine is not None else "-",
                         f"{a.top1:.1%}" if a.top1 is not None else "-",
                         f"{max((o.max_abs for o in a.outputs), default=0):.3g}", str(a.inputs), a.error or ""])
        sections.append(Section("What each precision costs: speed and output accuracy", [
            Paragraph("Every precision's outputs against the FP32 reference (CPU, INFERENCE_PRECISION_HINT=f32) on "
                      "the same fixed inputs, the least cosine similarity and top-1 agreement over the outputs "
                      "beside its speed against fp32."),
            Table(["device", "precision", "batch", "speed", "cosine", "top-1 agreement", "max abs error", "inputs",
                   "not compared because"], rows)]))

    if figures.batch is not None:
        sections.append(Section("Batch size and devices", [Image(figures.batch, "FPS and latency against batch")]))

    virtual = virtual_comparisons(points, results.devices, results.confirmations)
    if virtual:
        sections.append(Section("OpenVINO's virtual devices against their members tuned alone", [
            Bullets([v.reason for v in virtual]), *(Image(path, path.stem) for path in figures.virtual)]))

    if results.coldstarts:
        cold_section = Section("Cold start: why the first inference is slow")
        for cold in results.coldstarts:
            k = cold.key
            cold_section.blocks += [
                Paragraph(f"{k.device} {k.precision.value} batch {k.batch}, {k.streams} streams, "
                          f"{len(cold.samples)} fresh processes per figure: {cold.reason}."),
                Table(["figure", "median ms", "min ms", "max ms"],
                      [[label, *(f"{v:.2f}" for v in cold.stat(name))] for name, label in COLDSTART_FIGURES]),
            ]
        sections.append(cold_section)

    if results.profiles:
        profile_section = Section("Per-layer profile")
        for prof, path in zip(results.latest_profiles(), figures.profiles, strict=True):
            pc = prof.config
            profile_section.blocks += [
                Paragraph(f"{pc.device} {pc.precision.value} batch {pc.batch}, {pc.streams} streams x {pc.nireq} "
                          f"requests: {prof.inferences} inferences; layer time {prof.layer_ms_per_inference:.3f} ms "
                          f"of a {prof.mean_request_ms:.3f} ms mean request."),
                Table(["layer type", "share", "cumulative", "calls", "mean ms", "exec types"],
                      [[t.layer_type, f"{t.share:.1%}", f"{t.cumulative_share:.1%}", str(t.calls), f"{t.mean_ms:.4f}",
                        ", ".join(t.exec_types)] for t in prof.by_type()]),
                Image(path, path.stem),
            ]
        sections.append(profile_section)

    sections += _edge_sections(results, figures)
    found = diagnostics(points)
    sections.append(Section("Diagnostics", [Paragraph(how_measured(points)),
                                            Bullets([f"{d.kind.value}: {d.label}: {d.detail} ({d.hint})"
                                                     for d in found]) if found else Paragraph("No warnings.")]))
    return sections


def _edge_sections(results: StoredResults, figures: WrittenFigures) -> list[Section]:
    """Cameras served (open-loop load) and soaks, where the file holds them."""
    sections = []
    if results.capacities:
        rows = [[config_text(s.run.config), f"{s.run.target.fps:g} FPS, p{s.run.target.percentile:g} <= "
                 f"{s.run.target.max_latency_ms:g} ms, {s.run.target.arrival.value}",
                 f"{s.cameras}" + ("" if s.run.searched else " (given)") + ("" if s.finished else "+"),
                 s.latency_text(), str(s.trial.dropped if s.trial else "-"), str(len(s.run.trials))]
                for s in latest_served(results.capacities)]
        summary = capacity_summary(results.capacities)
        sections.append(Section("Cameras served: open-loop load", [
            Paragraph("Frames arrive on each camera's schedule; a frame that finds every request busy waits, and its "
                      "latency counts from its arrival. A camera count is served when nothing is dropped, the "
                      "percentile latency is within the budget and 95% of the frames offered complete; the count "
                      "claimed served twice."),
            *([Paragraph(summary)] if summary else []),
            Table(["configuration", "target", "cameras", "latency", "dropped", "trials"], rows),
            *([Image(figures.capacity, "cameras served")] if figures.capacity else [])]))
    for soak, path in zip([s for s in results.soaks if len(s.windows) >= 2], figures.soaks, strict=True):
        head, verdict = soak_lines(soak)
        sections.append(Section(f"Soak: {config_text(soak.config)}", [Paragraph(f"{head}. {verdict}."),
                                                                      Image(path, "FPS, p99 and clock over time")]))
    return sections


# -- rendering --------------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, sans-serif; max-width: 1400px; margin: 2em auto; padding: 0 1em; color: #1d1d1f; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; }
th { background: #f2f2f7; }
pre { background: #f6f8fa; padding: 0.8em; overflow-x: auto; }
img { max-width: 100%; display: block; margin: 0.5em 0 1.5em; border: 1px solid #eee; }
h2 { border-bottom: 2px solid #e5e5ea; padding-bottom: 0.2em; margin-top: 1.6em; }
"""


def _html_block(block: Block) -> str:
    if isinstance(block, Paragraph):
        return f"<p>{html.escape(block.text)}</p>"
    if isinstance(block, Bullets):
        return "<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in block.items) + "</ul>" if block.items else ""
    if isinstance(block, Table):
        head = "".join(f"<th>{html.escape(h)}</th>" for h in block.header)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in block.rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if isinstance(block, Code):
        return f"<pre><code>{html.escape(block.text)}</code></pre>"
    data = base64.b64encode(block.path.read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(block.alt)}" src="data:image/png;base64,{data}">'


def _to_html(title: str, sections: list[Section]) -> str:
    body = "".join(f"<h2>{html.escape(s.title)}</h2>" + "".join(_html_block(b) for b in s.blocks) for s in sections)
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>{body}</body></html>\n")


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def _md_block(block: Block, base: Path) -> str:
    if isinstance(block, Paragraph):
        return block.text
    if isinstance(block, Bullets):
        return "\n".join(f"- {i}" for i in block.items)
    if isinstance(block, Table):
        lines = ["| " + " | ".join(_md_cell(h) for h in block.header) + " |",
                 "|" + "---|" * len(block.header)]
        lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows]
        return "\n".join(lines)
    if isinstance(block, Code):
        return f"```{block.language}\n{block.text.rstrip()}\n```"
    return f"![{block.alt}]({block.path.relative_to(base)})"


def _to_markdown(title: str, sections: list[Section], base: Path) -> str:
    parts = [f"# {title}"]
    for s in sections:
        parts.append(f"## {s.title}")
        parts += [text for text in (_md_block(b, base) for b in s.blocks) if text]
    return "\n\n".join(parts) + "\n"
