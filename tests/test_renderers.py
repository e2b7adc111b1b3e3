"""The wording, pinned: one fixed, constructed document (the answer, tables, findings and diagnostics of made-up
results, and a block of every kind) rendered by each renderer and compared with its snapshot in tests/data/snapshots/.
When the wording changes on purpose, rewrite the snapshots with UPDATE_SNAPSHOTS=1 and read the diff before committing.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from factories import baseline, figures_missing, make_point, round_of
from rich.console import Console

from ov_tuner.analyse.answer import answer_if_any, answer_of
from ov_tuner.analyse.compare import compare
from ov_tuner.analyse.findings import findings_of
from ov_tuner.present.document import Bullets, Code, Image, Paragraph, Section, Tone
from ov_tuner.present.pages import to_html, to_markdown
from ov_tuner.present.terminal import print_sections
from ov_tuner.present.words.numbers import factor, gain, gain_inline, signed
from ov_tuner.schema import (
    Accuracy,
    DeviceInfo,
    Environment,
    Merged,
    MergeReason,
    Mode,
    OutputAccuracy,
    PointConfig,
    Precision,
)
from ov_tuner.stats.headtohead import Ratio
from ov_tuner.store.results import StoredResults
from ov_tuner.workloads.sweep.present.answer_json import answer_json
from ov_tuner.workloads.sweep.present.documents import (
    answer_section,
    comparison_document,
    recommend_document,
    show_document,
)
from ov_tuner.workloads.sweep.present.sections.answer import answer_facts

SNAPSHOTS = Path(__file__).parent / "data" / "snapshots"
# The smallest valid PNG: one transparent pixel, so that the HTML renderer embeds a real image.
PIXEL = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                      "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def constructed_results() -> StoredResults:
    """Made-up results of a 2-core CPU: three explicit points and the baselines, a confirmation round in which
    2 x 2 and 2 x 4 are within noise, outputs compared with FP32."""
    points = [make_point(1, 2, 150, latency_ms=13.0), make_point(2, 2, 230, latency_ms=8.6, noisy=True),
              make_point(2, 4, 235, latency_ms=17.0), baseline(Mode.LATENCY, 1, 1, 120),
              baseline(Mode.THROUGHPUT, 2, 2, 228), baseline(Mode.DEFAULT, 2, 2, 226)]
    configs = [p.config for p in points[1:3]] + [PointConfig("CPU", Precision.FP32, 1, 0, 0, m)
                                                 for m in (Mode.DEFAULT, Mode.THROUGHPUT, Mode.LATENCY)]
    wobble = [1.0, 1.02, 0.99, 1.01, 0.98, 1.0]
    levels = dict(zip(configs, (230, 235, 226, 228, 120), strict=True))
    round_ = round_of({c: [levels[c] * w for w in wobble] for c in configs},
                      {c: 17.0 if c.nireq == 4 else 8.6 for c in configs})
    accuracy = Accuracy("CPU", Precision.FP32, 1, 32, (OutputAccuracy("prob", False, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0,
                                                                      1.0),))
    env = Environment("2026.4.1-x", "0.1.0", "host", "AMD EPYC", 2, "3.11.7", "/m/mobilenet_v2.xml", "0" * 64,
                      "mobilenet_v2")
    cpu = DeviceInfo("CPU", "AMD EPYC", (1, 2), 1, ("FP32", "INT8"), "f32")
    merged = [Merged("CPU", p, Precision.FP32, MergeReason.NO_CAPABILITY) for p in (Precision.BF16, Precision.FP16)]
    return StoredResults(Path("results/demo.db"), env, {"CPU": cpu}, points, confirmations=[round_],
                         accuracies=[accuracy], merged=merged)


def constructed(tmp: Path) -> list[Section]:
    """The constructed results as `show` lays them out, and a block of every kind."""
    results = constructed_results()
    image = tmp / "pixel.png"
    image.write_bytes(PIXEL)
    every_kind = Section("Every block", (Paragraph("A plain paragraph."), Paragraph("A warning.", Tone.WARN),
                                         Bullets(("one", "two | with a bar")), Code("print(1)\n", "python"),
                                         Image(image, "one pixel")))
    return [*show_document(results, answer_if_any(results), findings_of(results)), every_kind]


def check(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("UPDATE_SNAPSHOTS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.is_file(), f"no snapshot {path}: run with UPDATE_SNAPSHOTS=1 to write it"
    assert text == path.read_text(), f"{name} differs from its snapshot; if on purpose, rerun with UPDATE_SNAPSHOTS=1"


def documents(tmp: Path) -> dict[str, list[Section]]:
    """Each document a command prints, from the constructed results: `show` (with a block of every kind),
    `recommend` (with the forms to deploy it) and `compare` (the file against a copy of it from another host)."""
    results = constructed_results()
    other = replace(results, path=Path("results/other.db"), environment=replace(results.environment, host="other"))
    answers = [answer_if_any(r) for r in (results, other)]
    return {"document": constructed(tmp), "recommend": recommend_document(answer_of(results)),
            "compare": comparison_document(compare([results, other]), answers, None)}


NAMES = ("document", "recommend", "compare")


@pytest.fixture
def document_set(tmp_path: Path) -> dict[str, list[Section]]:
    np.random.seed(0)
    return documents(tmp_path)


@pytest.mark.parametrize("name", NAMES)
def test_the_terminal_renderer(document_set: dict[str, list[Section]], name: str, tmp_path: Path) -> None:
    console = Console(width=160, record=True, color_system=None, force_terminal=False)
    print_sections(console, document_set[name])
    check(f"{name}.txt", console.export_text().replace(str(tmp_path / "pixel.png"), "pixel.png"))


@pytest.mark.parametrize("name", NAMES)
def test_the_html_renderer(document_set: dict[str, list[Section]], name: str) -> None:
    check(f"{name}.html", to_html("ov-tuner report: mobilenet_v2", document_set[name]))


@pytest.mark.parametrize("name", NAMES)
def test_the_markdown_renderer(document_set: dict[str, list[Section]], name: str, tmp_path: Path) -> None:
    check(f"{name}.md", to_markdown("ov-tuner report: mobilenet_v2", document_set[name], tmp_path))


def test_ratio_wording() -> None:
    """How every gain and factor is written, an interval always beside it."""
    assert gain(Ratio(1.041, 1.020, 1.062, 8)) == "+4.1% (95%: +2.0..+6.2%)"
    assert gain_inline(Ratio(1.008, 0.985, 1.031, 8)) == "+0.8%, 95%: -1.5..+3.1%"
    assert factor(Ratio(1.95, 1.90, 2.00, 8)) == "1.95x (95%: 1.90..2.00x)"
    assert factor(Ratio(1.02, 0.97, 1.07, 8)) == "no measurable difference (1.02x, 95%: 0.97..1.07x)"
    # an end that rounds to nothing reads +0.0, never -0.0
    assert gain(Ratio(0.9996, 0.9997, 1.0004, 8)) == "+0.0% (95%: +0.0..+0.0%)"
    assert signed(-0.04) == "+0.0" and signed(-0.8) == "-0.8" and signed(-0.0004, percent=True) == "+0.0%"


def test_the_answer_block_fits_one_screen_of_100_columns() -> None:
    """The sweep's ending and `recommend` open with this block: at most 25 lines, none wider than 100 columns."""
    np.random.seed(0)
    console = Console(width=100, record=True, color_system=None, force_terminal=False)
    print_sections(console, [answer_section(answer_if_any(constructed_results()), detail=False)], titles=False)
    lines = console.export_text().rstrip("\n").splitlines()
    assert lines[0].startswith("deploy") and 5 <= len(lines) <= 25, lines
    assert max(len(line.rstrip()) for line in lines) <= 100


def test_the_json_answer_carries_every_figure_of_the_terminal_answer() -> None:
    """`recommend --json` and the terminal render one record: every figure of every row is in the JSON, the rows
    are the same, and OpenVINO default names the precision it ran, not one it did not ask for."""
    np.random.seed(0)
    answer = answer_of(constructed_results())
    rows, payload = list(answer_facts(answer).rows), answer_json(answer)
    assert [label for label, _ in rows] == [k for k in payload["says"] if k != "verdict"]
    assert figures_missing(rows, payload) == []
    assert figures_missing([("speed", "1234.5 FPS")], payload) == ["speed: 1234.5 in '1234.5 FPS'"]
    default = next(g["over"] for g in payload["gains"] if g["over"]["mode"] == "default")
    assert default["precision"] is None and default["mode"] == "default"
    assert [m["precision"] for m in payload["precisions"]["measured_as_another"]] == ["bf16", "fp16"]
