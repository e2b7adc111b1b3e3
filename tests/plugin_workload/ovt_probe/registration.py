"""The probe as it registers with ov-tuner (the `ov_tuner.workloads` entry point in pyproject.toml): its command, and
how ov-tuner's commands over a results file read, word, draw, export, compare and deploy its answer. Only the
Registration is made on import: the command line imports every workload's."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ov_tuner.plugin import API_VERSION, Asked, Registration
from ovt_probe import WRITER

if TYPE_CHECKING:
    import typer
    from rich.console import Console

    from ov_tuner.plugin import Form, Forms, ReportFiles, Section, Where
    from ovt_probe.probe import ProbeAnswer


def _answer(results: Path, asked: Asked | None = None) -> ProbeAnswer:
    from ovt_probe.probe import probe_answer  # imports the store (numpy): `ov-tuner --help` goes without

    return probe_answer(results)


def _sections(answer: ProbeAnswer, every: bool) -> list[Section]:
    from ov_tuner.plugin import Facts, Section, table

    best = answer.best
    said = Section("answer", (Facts((("deploy", f"INFERENCE_NUM_THREADS {best.threads}"),
                                     ("median", f"{best.median_ms:.3f} ms"), ("model", answer.model))),))
    if not every:
        return [said]
    rows = [[str(t.threads), f"{t.median_ms:.3f}", f"{t.p90_ms:.3f}", f"{t.first_ms:.3f}", str(len(t.latencies_ms))]
            for t in answer.measured]
    return [said, Section("measured", (table(("threads", "median ms", "p90 ms", "first ms", "samples"), rows,
                                              numeric=("median ms", "p90 ms", "first ms", "samples")),))]


def _show(console: Console, results: Path, verbose: bool) -> None:
    from ov_tuner.plugin import print_sections

    print_sections(console, _sections(_answer(results), every=True))


def _words(console: Console, answer: ProbeAnswer) -> None:
    from ov_tuner.plugin import print_sections

    print_sections(console, _sections(answer, every=False))


def _figures(results: Path, out_dir: Path, fmt: str, paired_only: bool) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    answer = _answer(results)
    figure, axes = plt.subplots(figsize=(4, 3))
    axes.bar([str(t.threads) for t in answer.measured], [t.median_ms for t in answer.measured])
    axes.set(xlabel="inference threads", ylabel="median latency (ms)")
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"probe.{fmt}"
    figure.savefig(path)
    plt.close(figure)
    return [path]


def _report(results: Sequence[Path], out_dir: Path, models_differ: bool) -> ReportFiles:
    from ov_tuner.plugin import BadInputError, Image, Section, write_pages

    if len(results) > 1:
        raise BadInputError(f"{results[0]} is {WRITER.whose} results file, reported one at a time: give one file")
    images = _figures(results[0], out_dir, "png", False)
    sections = [*_sections(_answer(results[0]), every=True),
                Section("figure", tuple(Image(p, "median latency by threads") for p in images))]
    return write_pages("ov-tuner probe", sections, out_dir, images)


def _compare(console: Console, results: Sequence[Path], models_differ: bool, out_dir: Path | None, fmt: str) -> None:
    from ov_tuner.plugin import Section, print_sections, table

    answers = [_answer(r) for r in results]
    rows = [[a.path, str(a.best.threads), f"{a.best.median_ms:.3f}"] for a in answers]
    print_sections(console, [Section("compared", (table(("file", "threads", "median ms"), rows,
                                                        numeric=("threads", "median ms")),))])


def _export(results: Path, as_json: bool, with_latencies: bool) -> tuple[str, int]:
    answer = _answer(results)
    if as_json:
        return json.dumps([{"threads": t.threads, "first_ms": t.first_ms, "latencies_ms": list(t.latencies_ms)}
                           for t in answer.measured], indent=2) + "\n", len(answer.measured)
    lines = ["threads,median_ms,p90_ms,first_ms"] + [f"{t.threads},{t.median_ms},{t.p90_ms},{t.first_ms}"
                                                     for t in answer.measured]
    return "\n".join(lines) + "\n", len(answer.measured)


# The Python form: the model compiled as the answer ran, and what OpenVINO reads back of it.
PYTHON = """import openvino as ov

compiled = ov.Core().compile_model({model!r}, "CPU", {{"INFERENCE_NUM_THREADS": {threads}}})
print("INFERENCE_NUM_THREADS", compiled.get_property("INFERENCE_NUM_THREADS"))"""


def _python(answer: ProbeAnswer, where: Where) -> Form:
    from ov_tuner.plugin import Form

    return Form(PYTHON.format(model=answer.model, threads=answer.best.threads))


def _json(answer: ProbeAnswer, where: Where) -> Form:
    from ov_tuner.plugin import Form, envelope

    best = answer.best
    body = {"threads": best.threads, "median_ms": best.median_ms, "model": answer.model}
    return Form(json.dumps(envelope("probe", body, None, None, None, {"deploy": f"{best.threads} threads"}),
                           indent=2))


def _properties(answer: ProbeAnswer, where: Where) -> Form:
    """A form of the probe's own (API 1.1): the properties to compile with, as `compile_model` takes them."""
    from ov_tuner.plugin import Form

    return Form(json.dumps({"INFERENCE_NUM_THREADS": answer.best.threads}))


def _forms() -> Forms:
    from ov_tuner.plugin import DeployFormat

    return {DeployFormat.PYTHON: _python, "properties": _properties, DeployFormat.JSON: _json}


def _commands(app: typer.Typer) -> None:
    from ovt_probe.command import add_probe

    add_probe(app)


PROBE = Registration(writer=WRITER, api=API_VERSION, answer=_answer, show=_show, words=_words, report=_report,
                     figures=_figures, compare=_compare, export=_export, forms=_forms, formats=("properties",),
                     commands=_commands, fleet=True)
