"""Commands over a results file of any workload: show, plot, recommend, report, export, compare. They only read it,
through the one registry of results files (ov_tuner.registry), and never ask what kind of file it is themselves."""

from __future__ import annotations

import dataclasses
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ov_tuner.commandline.app import app, one_line_errors, options, out
from ov_tuner.commandline.flags import parse_precision
from ov_tuner.commandline.renamed import FOLDER, renamed_flags
from ov_tuner.errors import BadInputError, Given
from ov_tuner.present.deploy_format import DeployFormat
from ov_tuner.registry import registry
from ov_tuner.store.destinations import output_file, output_folder

if TYPE_CHECKING:
    from ov_tuner.analyse.answer import Answer
    from ov_tuner.present.deploy import Form

for _command in ("plot", "report", "compare"):
    renamed_flags(_command, FOLDER)


def _written_by(exporting: bool = False) -> str:
    """'`ov-tuner llm`, `pipeline` or `sweep`': every installed workload's command, a plug-in's too (`exporting`:
    those whose files have points to export)."""
    names = [f"`{name}`" for name, r in registry().items() if r.export is not None or not exporting]
    if not names:  # the command line is built all the same (an entry point that did not load is one warning)
        return "a workload's command (none installed here)"
    names[0] = f"`ov-tuner {names[0][1:]}"
    return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]


# Every workload's results file: the commands that read any of them say so.
ANY_RESULTS = f"Results file written by {_written_by()}."

# The flag that narrows an answer by each of Asked's fields (ov_tuner.registry.parts.ASKABLE).
NARROWING_FLAGS = {"max_latency": "--max-latency", "percentile": "--percentile", "device": "--device",
                   "precision": "--precision", "limit": "--max-accuracy-loss"}

# What `recommend --format` offers: the answer in words, ov-tuner's own forms, and the forms each installed workload
# adds (Registration.formats: a plug-in's, named without loading its forms).
ADDED_FORMATS = tuple(dict.fromkeys(name for r in registry().values() for name in r.formats
                                    if name not in {f.value for f in DeployFormat}))
FormName = Enum("FormName", {name: name for name in (*(f.value for f in DeployFormat), *ADDED_FORMATS)},  # type: ignore[misc]
                type=str)
TEXT_FORM = FormName(DeployFormat.TEXT.value)


class FigureFormat(str, Enum):
    PNG = "png"
    SVG = "svg"
    PDF = "pdf"


class ExportFormat(str, Enum):
    CSV = "csv"
    JSON = "json"


@app.command()
@one_line_errors
def show(results: Annotated[Path, typer.Argument(help=ANY_RESULTS)]) -> None:
    """Print every stored point, the best configuration per device and precision, and diagnostics (a pipeline's
    file: its answer, where a frame's time goes, the rounds and every split tried; an LLM's: every trial, then its
    answer)."""
    from ov_tuner.registry import registered

    registered(results).show(out, results, options.verbose)


@app.command()
@one_line_errors
def plot(
    results: Annotated[Path, typer.Argument(help=ANY_RESULTS)],
    out_dir: Annotated[Path, typer.Option("--out-dir", help="Folder for the PNG figures.")] = Path("plots"),
    paired_only: Annotated[bool, typer.Option(help="Precision figures: leave out the cells measured apart, in the "
                                              "search; keep those measured head to head.")] = False,
    fmt: Annotated[FigureFormat, typer.Option("--format", help="png, svg (for reports) or pdf.")] = FigureFormat.PNG,
) -> None:
    """Write heatmaps (streams x nireq) per device, precision and batch, and the comparison figures, each marking the
    configuration to deploy and OpenVINO default (an LLM's: its Pareto front, rounds and walk to the most users)."""
    from ov_tuner.registry import registered

    output_folder(out_dir, Given("--out-dir"))
    for path in registered(results).figures(results, out_dir, fmt.value, paired_only):
        out.print(f"wrote {path}")


class Percentile(str, Enum):
    P50 = "50"
    P90 = "90"
    P99 = "99"


@app.command()
@one_line_errors
def recommend(
    results: Annotated[Path, typer.Argument(help=ANY_RESULTS)],
    max_latency: Annotated[float | None, typer.Option(min=0.0, help="Latency budget per request, in ms.")] = None,
    percentile: Annotated[Percentile, typer.Option(help="The latency percentile the budget holds at: 50, 90 or 99, "
                                                   "the ones a sweep stores.")]
    = Percentile.P90,
    device: Annotated[str | None, typer.Option(help="Only this device.")] = None,
    precision: Annotated[str | None, typer.Option(help="Only this precision: fp32, fp16, bf16 or int8.")] = None,
    config_out: Annotated[Path | None, typer.Option(help="Also write the benchmark_app -load_config JSON here (with "
                                                    "any --format); the benchmark_app line names it.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="The same as --format json.")] = False,
    fmt: Annotated[FormName, typer.Option("--format", help="text: the answer and every form; or one form alone: "
                                              "python, benchmark_app, load_config (benchmark_app -load_config), "
                                              "ovms (OpenVINO Model Server's config.json; an LLM's: its "
                                              "graph.pbtxt), dlstreamer (a gst-launch-1.0 line), kubernetes (the "
                                              "container's CPU request and limit the answer was measured under), ray "
                                              "(an actor holding as many CPUs), json (the whole answer in figures)"
                                              + (f"; a plug-in's own: {', '.join(ADDED_FORMATS)}" if ADDED_FORMATS
                                                 else "") + ".")]
    = TEXT_FORM,
    out_file: Annotated[Path | None, typer.Option("-o", "--out", help="With a --format other than text: write the "
                                                  "form to this file and print the steps that use it.")] = None,
    max_accuracy_loss: Annotated[str | None, typer.Option(help="Leave out precisions whose outputs lose more than "
                                                          "this against FP32: cosine=0.01 (1 - cosine similarity), "
                                                          "top1=1% (top-1 disagreement), boxes=10% (top boxes "
                                                          "lost), mask=10% (mask IoU lost), or none. \\[default: "
                                                          "cosine=0.01,top1=1%,boxes=10%,mask=10%; an INT8 IR "
                                                          "calibrated on generated inputs only with none]")] = None,
) -> None:
    """The highest-throughput configuration within a latency budget, why it wins, and how to deploy it."""
    from ov_tuner.analyse.accuracy import AccuracyLimit
    from ov_tuner.present.deploy import Where, by_name, deploy_form, formats_for
    from ov_tuner.registry import Asked, registered

    form = DeployFormat.JSON.value if as_json else str(fmt.value)
    registration = registered(results)
    limit = AccuracyLimit.parse(max_accuracy_loss) if max_accuracy_loss else None
    asked = Asked(max_latency, int(percentile.value), device, parse_precision(precision) if precision else None, limit)
    unread = [NARROWING_FLAGS[field.name] for field in dataclasses.fields(asked)
              if getattr(asked, field.name) != field.default and field.name not in registration.asks]
    if unread:
        raise BadInputError(f"{registration.writer.whose} answer is not narrowed by {' or '.join(unread)} (it is "
                            "answered as it was tuned): leave it out")
    forms = by_name(registration.forms())
    if out_file is not None and form == DeployFormat.TEXT.value:
        raise BadInputError(f"-o writes one form: add --format {formats_for(forms)} (the text answer goes to the "
                            "terminal)")
    for wanted in (form, DeployFormat.LOAD_CONFIG.value if config_out is not None else DeployFormat.TEXT.value):
        if wanted != DeployFormat.TEXT.value and wanted not in forms:
            refused = "--config-out" if wanted != form else wanted
            raise BadInputError(f"{registration.writer.whose} answer comes as --format {formats_for(forms)}, not "
                                f"{refused}")
    for path, flag in ((config_out, "--config-out"), (out_file, "-o")):
        if path is not None:
            output_file(path, Given(flag), (results,))  # never over the results file read
    answer = registration.answer(results, asked)
    wrote = _load_config_out(answer, config_out)
    if form == DeployFormat.TEXT.value:
        registration.words(out, answer)
        if wrote:
            out.print(*wrote, sep="\n", highlight=False, markup=False, soft_wrap=True)
        return
    where = Where(str(out_file) if out_file is not None else None, str(config_out) if config_out is not None else None)
    _print_form(deploy_form(form, forms, answer, where), wrote, out_file)


def _load_config_out(answer: Answer, config_out: Path | None) -> tuple[str, ...]:
    """Write the -load_config file `--config-out` names; what was written and the benchmark_app line that reads it."""
    from ov_tuner.present.formats import deploy_snippets

    if config_out is None:
        return ()
    snippets = deploy_snippets(answer.recommendation.winner, answer.model, answer.quantization, str(config_out),
                               answer.input_shapes)
    config_out.write_text(snippets.load_config + "\n")
    return f"wrote {config_out}", snippets.benchmark_app_line


def _print_form(form: Form, wrote: tuple[str, ...], out_file: Path | None) -> None:
    """One form alone, the model to make first before anything that reads it: on standard output with its steps as
    comments on standard error, or written to `out_file` with its steps."""
    if out_file is None:  # flushed in turn: where both streams go to one place, the steps keep their order
        for step in form.first:
            print(f"# {step}", file=sys.stderr, flush=True)
        print(form.text, flush=True)
        for step in (*wrote, *form.then):
            print(f"# {step}", file=sys.stderr)
        return
    out_file.write_text(form.text + "\n")
    out.print(*form.first, *wrote, f"wrote {out_file}", *form.then, sep="\n", highlight=False, markup=False,
              soft_wrap=True)


@app.command()
@one_line_errors
def report(
    results: Annotated[list[Path], typer.Argument(help=f"Results files of {_written_by()}; several sweeps give "
                                                  "one page that compares them (hosts, a fleet).")],
    out_dir: Annotated[Path, typer.Option("--out-dir", help="Folder for report.html, report.md and figures.")]
    = Path("report"),
    models_differ: Annotated[bool, typer.Option(help="With several files: allow files of different models.")] = False,
) -> None:
    """A self-contained HTML report and a Markdown summary: answers, figures, baselines and diagnostics."""
    from ov_tuner.registry import registered_alike

    output_folder(out_dir, Given("--out-dir"))
    files = registered_alike("report", results).report(results, out_dir, models_differ)
    out.print(f"wrote {files.html} and {files.markdown} ({len(files.images)} figures)")


@app.command()
@one_line_errors
def export(
    results: Annotated[Path, typer.Argument(help=f"Results file written by {_written_by(exporting=True)}.")],
    fmt: Annotated[ExportFormat, typer.Option("--format", help="csv (one row a point) or json (nested).")]
    = ExportFormat.CSV,
    out_file: Annotated[Path | None, typer.Option("-o", "--out", help="File to write; standard output when left out.")]
    = None,
    with_latencies: Annotated[bool, typer.Option(help="Also every window's FPS and every request's latency.")] = False,
) -> None:
    """Every point with its configuration, figures, how it ended and the environment, for pandas, a spreadsheet
    or another tool."""
    from ov_tuner.registry import registered

    if out_file is not None:
        output_file(out_file, Given("-o"), (results,))
    registration = registered(results)
    if registration.export is None:
        raise BadInputError(f"{results} is {registration.writer.whose} results file, and the workload "
                            f"{registration.writer.name} has no points to export: `ov-tuner recommend {results} "
                            f"--format json` gives its answer in figures, `ov-tuner show {results}` every trial")
    text, points = registration.export(results, fmt is ExportFormat.JSON, with_latencies)
    if out_file is None:
        sys.stdout.write(text)
        return
    out_file.write_text(text)
    out.print(f"wrote {out_file}: {points} points")


@app.command(name="compare")
@one_line_errors
def compare_command(
    results: Annotated[list[Path], typer.Argument(help="Two or more results files: two hosts, two OpenVINO versions, "
                                                  "before and after a model change.")],
    models_differ: Annotated[bool, typer.Option(help="Allow files measured with different models.")] = False,
    out_dir: Annotated[Path | None, typer.Option("--out-dir", help="Also draw the comparison in this folder.")]
    = None,
    fmt: Annotated[FigureFormat, typer.Option("--format", help="png, svg or pdf.")] = FigureFormat.PNG,
) -> None:
    """The same configurations in each file side by side: FPS and p90 ratios, each file's best, and whether it is
    still the best in the others (LLMs' files: each one's answer and users served)."""
    from ov_tuner.registry import registered_alike, registry

    if out_dir is not None:
        output_folder(out_dir, Given("--out-dir"))
    registration = registered_alike("compare", results)
    if registration.compare is None:
        comparable = " or ".join(r.writer.whose for r in registry().values() if r.compare is not None)
        raise BadInputError(f"{results[0]} is {registration.writer.whose} results file, which compare does not set "
                            f"side by side (it compares {comparable} files): `ov-tuner show {results[0]}` gives "
                            "every trial")
    registration.compare(out, results, models_differ, out_dir, fmt.value)
