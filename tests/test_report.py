"""Reports from a real sweep of the default model, checked as files and in a real headless browser."""

from __future__ import annotations

import re
import shutil
from html import unescape
from pathlib import Path

import pytest
from conftest import quick_spec
from matplotlib.image import imread
from playwright.sync_api import sync_playwright
from typer.testing import CliRunner

from ov_tuner.analyse.answer import answer_if_any
from ov_tuner.analyse.figures import plot_data
from ov_tuner.analyse.findings import findings_of
from ov_tuner.cli import app
from ov_tuner.present.report import ReportFiles
from ov_tuner.schema import Mode, Precision, StopRule
from ov_tuner.store.results import load_results
from ov_tuner.workloads.sweep import run_sweep
from ov_tuner.workloads.sweep.present.report import build_report

# The report's sections, in order: the answer first, then the figures, then the detail.
SECTIONS = ("What to deploy", "Heatmaps", "Pareto front", "Batch size", "Precisions against each other",
            "Best configurations", "Saturation", "the baselines", "Every point",
            "Environment", "Diagnostics")
# Debian's chromium, installed by scripts/test; flags for a root user on a machine with no network.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]


@pytest.fixture(scope="session")
def default_model_db(default_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """MobileNet-v2, fp32 and fp16, batch 1 and 2, 1-2 streams x 1-2 requests, with the hint baselines."""
    out = tmp_path_factory.mktemp("default-model") / "results.db"
    summary = run_sweep(quick_spec(default_model, out, batches=(1, 2),
                                   stop=StopRule(window_s=0.1, fixed_s=0.3),
                                   precisions=(Precision.FP32, Precision.FP16), baselines=True))
    assert (summary.measured, summary.failed) == (16 + 8 + 2, 0)  # grid, hint baselines, OpenVINO default per batch
    return out


@pytest.fixture(scope="session")
def report(default_model_db: Path, tmp_path_factory: pytest.TempPathFactory) -> ReportFiles:
    stored = load_results(default_model_db)
    answer = answer_if_any(stored)
    return build_report(stored, answer, findings_of(stored), plot_data(stored, answer),
                        tmp_path_factory.mktemp("report"))


def test_the_sweep_measured_openvinos_own_choices(default_model_db: Path) -> None:
    points = load_results(default_model_db).points
    baselines = [p for p in points if p.config.mode is not Mode.EXPLICIT]
    assert {p.config.mode for p in baselines} == {Mode.LATENCY, Mode.THROUGHPUT, Mode.DEFAULT}
    for p in baselines:
        assert p.compile is not None and "NUM_STREAMS" not in p.compile.requested
        assert p.compile.requested["PERFORMANCE_HINT"] == p.config.mode.performance_hint
        assert p.nireq == p.compile.optimal_nireq >= 1 and p.streams >= 1
        assert p.measurement is not None and p.measurement.requests >= p.nireq
    defaults = [p for p in baselines if p.config.mode is Mode.DEFAULT]
    assert [p.config.batch for p in defaults] == [1, 2]  # once per batch, whatever the precisions swept
    assert all(p.compile is not None and p.compile.requested == {"PERFORMANCE_HINT": "THROUGHPUT"} for p in defaults)
    # what it ran is read back: the CPU's own default precision
    cpu = load_results(default_model_db).devices["CPU"]
    assert all(p.compile is not None and p.compile.inference_precision == cpu.default_precision for p in defaults)
    # explicit points run as a throughput deployment does, with their own streams, and say what threading ran
    for p in points:
        if p.config.mode is Mode.EXPLICIT:
            assert p.compile is not None and p.compile.requested["PERFORMANCE_HINT"] == "THROUGHPUT"
            assert p.compile.requested["NUM_STREAMS"] == str(p.config.streams)
            assert p.compile.read_back["PERFORMANCE_HINT"] == "THROUGHPUT"
            assert {"INFERENCE_NUM_THREADS", "ENABLE_HYPER_THREADING", "ENABLE_CPU_PINNING"} <= set(
                p.compile.read_back)


def test_report_files_and_sections(report: ReportFiles) -> None:
    html, markdown = report.html.read_text(), report.markdown.read_text()
    headings = [unescape(h) for h in re.findall(r"<h2>([^<]*)</h2>", html)]
    assert len(headings) == len(SECTIONS) and all(t in h for t, h in zip(SECTIONS, headings, strict=True)), headings
    assert all(f"## {h}" in markdown for h in headings)
    # 4 heatmaps (2 precisions x 2 batches), 2 precision comparisons (per batch), Pareto, batch view
    assert len(report.images) == 8
    assert html.count('<img alt="') == len(report.images)
    assert 'src="file:' not in html and 'src="data:image/png;base64,' in html  # self-contained
    linked = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", markdown)
    assert sorted(linked) == sorted(p.name for p in report.images)
    assert all((report.markdown.parent / name).is_file() for name in linked)
    assert "saturates at" in markdown and "THROUGHPUT hint (" in markdown and "OpenVINO default (" in markdown
    # the noise clause needs points with 3 windows, which 0.3 s runs do not always hold (see test_analysis)
    assert "26 points measured: 26 ran for a fixed time" in markdown


def test_report_renders_in_headless_chromium(report: ReportFiles, tmp_path: Path) -> None:
    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is needed for this test: scripts/test installs it (apt-get install chromium)"
    shot = tmp_path / "report.png"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(report.html.as_uri(), wait_until="load")
        images = page.evaluate("Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight])")
        headings = page.evaluate("Array.from(document.querySelectorAll('h2')).map(h => h.textContent)")
        page.screenshot(path=str(shot), full_page=True)
        browser.close()
    assert len(images) == len(report.images)
    assert all(complete and width > 300 and height > 200 for complete, width, height in images)
    assert len(headings) == len(SECTIONS)
    pixels = imread(shot)
    assert pixels.shape[0] > 3000  # the whole page, figures included
    assert pixels[..., :3].std() > 0.1  # not blank


def test_recommend_command_with_and_without_a_budget(default_model_db: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    free = runner.invoke(app, ["recommend", str(default_model_db)])
    assert free.exit_code == 0, free.stderr
    assert free.stdout.startswith("deploy") and "has the highest throughput of all 16 configurations" in free.stdout
    assert "ov.AsyncInferQueue(compiled," in free.stdout and "benchmark_app -m" in free.stdout

    config = tmp_path / "config.json"
    budget = runner.invoke(app, ["recommend", str(default_model_db), "--max-latency", "1000", "--percentile", "99",
                                 "--config-out", str(config)])
    assert budget.exit_code == 0, budget.stderr
    assert "p99 latency <= 1000 ms" in budget.stdout and config.is_file()

    impossible = runner.invoke(app, ["recommend", str(default_model_db), "--max-latency", "0.001"])
    assert impossible.exit_code == 2
    assert impossible.stderr.startswith("error: no configuration meets p90 latency <= 0.001 ms; the fastest is")


def test_report_command(default_model_db: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["report", str(default_model_db), "--out-dir", str(tmp_path / "r")])
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "r" / "report.html").is_file() and "8 figures" in result.stdout
