"""`plot` and `report` on a real LLM results file (a tiny GGUF served by GenAI): the figure files, the report's pages,
and the marks each figure draws for the setting to deploy and GenAI left alone."""

from __future__ import annotations

import dataclasses
import html
import json
import math
import re
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import same_color
from matplotlib.figure import Figure
from matplotlib.image import imread
from typer.testing import CliRunner

from ov_tuner.cli import app
from ov_tuner.present.drawing import DEPLOYED_COLOUR
from ov_tuner.present.labels import placed_names
from ov_tuner.stats.headtohead import Ratio
from ov_tuner.workloads.llm.answer import llm_answer
from ov_tuner.workloads.llm.answer_record import BASELINES, LlmAnswer
from ov_tuner.workloads.llm.present import words_report as words
from ov_tuner.workloads.llm.present.figures import LlmFigures, pareto_figure, rounds_figure, users_figure
from ov_tuner.workloads.llm.present.report import llm_document
from ov_tuner.workloads.llm.present.words import answer_lines
from ov_tuner.workloads.llm.present.words_setting import setting_text
from ov_tuner.workloads.llm.results_file import load_llm
from ov_tuner.workloads.llm.schema import LlmSetting

FIGURES = ("llm_pareto.png", "llm_rounds.png", "llm_users.png")
SECTIONS = (words.ANSWER_SECTION, words.RUN_SECTION, words.PARETO_SECTION, words.ROUNDS_SECTION, words.USERS_SECTION,
            words.SEARCHED_SECTION)


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def answer(llm_db: Path) -> LlmAnswer:
    stored = load_llm(llm_db)
    assert stored is not None
    found = llm_answer(stored)
    assert found.answer is not None and found.passes == 2 and found.walks
    return found


def _labels(fig: Figure) -> list[str]:
    legend = fig.axes[0].get_legend() or fig.legends[0]
    return [t.get_text() for t in legend.get_texts()]


def _ringed(fig: Figure) -> list[tuple[float, float]]:
    """Where the answer's ring is drawn: a hollow circle edged in the answer's colour."""
    return [(float(np.asarray(line.get_xdata())[0]), float(np.asarray(line.get_ydata())[0]))
            for line in fig.axes[0].lines if line.get_marker() == "o" and line.get_markerfacecolor() == "none"
            and same_color(line.get_markeredgecolor(), DEPLOYED_COLOUR) and np.asarray(line.get_xdata()).size == 1]


def test_plot_writes_the_three_figures(llm_db: Path, tmp_path: Path) -> None:
    said = _cli("plot", str(llm_db), "--out-dir", str(tmp_path))
    assert said.split() == [w for name in FIGURES for w in ("wrote", str(tmp_path / name))]
    for name in FIGURES:
        pixels = imread(tmp_path / name)
        assert pixels.shape[0] > 300 and pixels.shape[1] > 500 and pixels[..., :3].std() > 0.05


def test_export_of_an_llms_file_is_one_line_naming_what_gives_its_figures(llm_db: Path) -> None:
    done = CliRunner().invoke(app, ["export", str(llm_db)])
    assert done.exit_code != 0 and done.stdout == ""
    assert done.stderr.strip() == (f"error: {llm_db} is an LLM's results file, and the workload llm has no points to "
                                   f"export: `ov-tuner recommend {llm_db} --format json` gives its answer in figures, "
                                   f"`ov-tuner show {llm_db}` every trial")
    # the help names the workloads whose files export: the sweep's (and a plug-in's that declares it)
    helped = CliRunner().invoke(app, ["export", "--help"], terminal_width=200)
    assert "Results file written by `ov-tuner sweep`." in " ".join(helped.stdout.split())


def test_another_workloads_file_as_out_is_one_line_naming_whose_it_is(llm_db: Path, swept_db: Path, tiny_gguf: Path,
                                                                       tiny_model: Path, tmp_path: Path) -> None:
    """A sweep into an LLM's file, an LLM into a sweep's: each refused before anything is written, naming whose
    file it is."""
    llm_copy, sweep_copy = tmp_path / "llm.db", tmp_path / "sweep.db"
    llm_copy.write_bytes(llm_db.read_bytes())
    sweep_copy.write_bytes(swept_db.read_bytes())
    done = CliRunner().invoke(app, ["sweep", str(tiny_model), "--out", str(llm_copy), "--streams", "1", "--nireq",
                                    "1", "--seconds", "0.2", "--no-confirm", "--no-baselines"])
    assert done.exit_code != 0 and done.stderr.strip() == (
        f"error: {llm_copy} is an LLM's results file; tune into a new --out file")
    done = CliRunner().invoke(app, ["llm", str(tiny_gguf), "--out", str(sweep_copy)])
    assert done.exit_code != 0 and done.stderr.strip() == (
        f"error: {sweep_copy} is a sweep's results file; tune into a new --out file")
    assert llm_copy.read_bytes() == llm_db.read_bytes() and sweep_copy.read_bytes() == swept_db.read_bytes()


def test_report_holds_the_answer_the_figures_and_every_setting_searched(llm_db: Path, answer: LlmAnswer,
                                                                         tmp_path: Path) -> None:
    said = _cli("report", str(llm_db), "--out-dir", str(tmp_path))
    assert said.strip() == f"wrote {tmp_path / 'report.html'} and {tmp_path / 'report.md'} (3 figures)"
    page, markdown = (tmp_path / "report.html").read_text(), (tmp_path / "report.md").read_text()
    assert [html.unescape(h) for h in re.findall(r"<h2>([^<]*)</h2>", page)] == list(SECTIONS)
    assert page.count('src="data:image/png;base64,') == 3 and 'src="file:' not in page  # self-contained
    assert sorted(re.findall(r"!\[[^\]]*\]\(([^)]+)\)", markdown)) == sorted(FIGURES)
    deploy = dict(answer_lines(answer))["deploy"]
    assert f"<td>{html.escape(deploy)}</td>" in page and f"- **deploy**: {deploy}" in markdown
    rows = [html.unescape(r) for r in re.findall(r"<tr><td>([^<]*)</td><td class=num>", page)]
    assert sorted(rows) == sorted(setting_text(f.setting) for f in answer.searched) and len(rows) == 4
    chosen = answer.answer
    assert chosen is not None
    searched = next(f for f in answer.searched if f.setting == chosen.setting)
    assert f"| {setting_text(chosen.setting)} | {searched.tokens_per_s:.0f} | " in markdown
    assert "ContinuousBatchingPipeline(MODEL, scheduler, DEVICE" in page  # the form that runs it


def test_the_pareto_figure_rings_the_answer_where_the_search_measured_it(answer: LlmAnswer) -> None:
    chosen = answer.answer
    assert chosen is not None
    fig = pareto_figure(answer)
    labels = _labels(fig)
    assert words.deployed_mark_text(chosen.setting, True) in labels
    assert all(words.baseline_mark_text(b) in labels for b in BASELINES)
    assert words.FRONT in labels and any(label.startswith("budget: TTFT p90 within 60000 ms") for label in labels)
    searched = next(f for f in answer.searched if f.setting == chosen.setting)
    assert _ringed(fig) == [pytest.approx((searched.latencies.ttft_ms[1], searched.tokens_per_s))]
    named = {t.get_text() for t in fig.axes[0].texts}
    assert {setting_text(f.setting) for f in answer.searched} <= named


def test_a_budget_near_the_points_is_drawn_and_one_far_right_is_named(answer: LlmAnswer) -> None:
    slowest = max(f.latencies.ttft_ms[1] for f in answer.searched)
    near = dataclasses.replace(answer.job.budget, ttft_ms=round(slowest * 2, 3))
    fig = pareto_figure(dataclasses.replace(answer, job=dataclasses.replace(answer.job, budget=near)))
    drawn = [line for line in fig.axes[0].lines if line.get_linestyle() == "--"]
    assert [np.asarray(line.get_xdata())[0] for line in drawn] == [pytest.approx(near.ttft_ms)]
    assert words.budget_mark_text(near, 0, True) in _labels(fig)
    assert words.budget_mark_text(answer.job.budget, 0, False) in _labels(pareto_figure(answer))


def test_the_pareto_figure_shows_both_budgets_and_no_name_over_another(answer: LlmAnswer) -> None:
    """A point that missed the TPOT budget shows it on the TPOT panel (the demo's figure drew every setting hollow left
    of a TTFT-only line); two settings measured alike once printed their names over each other."""
    twin = dataclasses.replace(answer.searched[0], setting=LlmSetting(max_num_batched_tokens=4096,
                                                                      enable_prefix_caching=True))
    slowest = max(f.at_budget[1] for f in answer.searched)
    near = dataclasses.replace(answer.job.budget, tpot_ms=round(slowest / 2, 3))
    alike = dataclasses.replace(answer, searched=(*answer.searched, twin),
                                job=dataclasses.replace(answer.job, budget=near))
    fig = pareto_figure(alike)
    ttft_panel, tpot_panel = fig.axes[:2]
    drawn = [np.asarray(line.get_xdata())[0] for line in tpot_panel.lines if line.get_linestyle() == "--"]
    assert drawn == [pytest.approx(near.tpot_ms)] and words.budget_mark_text(near, 1, True) in _labels(fig)
    assert tpot_panel.get_xlabel() == "TPOT p90 (ms)" and ttft_panel.get_xlabel() == "TTFT p90 (ms)"
    fig.canvas.draw()
    names = placed_names(fig)
    assert len(names) == 2 * len(alike.searched)  # every setting named on both panels
    boxes = [n.get_window_extent() for n in names]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_the_rounds_figure_draws_a_line_per_contender_pass_by_pass(answer: LlmAnswer) -> None:
    chosen = answer.answer
    assert chosen is not None
    fig = rounds_figure(answer)
    lines = {line.get_label(): line for line in fig.axes[0].lines}
    mine = lines[words.deployed_mark_text(chosen.setting, True)]
    assert same_color(mine.get_color(), DEPLOYED_COLOUR)
    expected = sorted((t.pass_number + 1, t.tokens_per_s) for t in answer.trials
                      if t.pass_number is not None and t.setting == chosen.setting)
    drawn = zip(np.asarray(mine.get_xdata()), np.asarray(mine.get_ydata()), strict=True)
    assert list(drawn) == [pytest.approx(e) for e in expected]
    contenders = {t.setting for t in answer.trials if t.pass_number is not None}
    assert len(lines) == len(contenders) == 4
    assert all(words.baseline_mark_text(b) in lines for b in BASELINES if b != chosen.setting)


def test_the_users_figure_marks_each_walk_and_the_answer(answer: LlmAnswer) -> None:
    chosen = answer.answer
    assert chosen is not None
    fig = users_figure(answer)
    labels = _labels(fig)
    assert words.deployed_mark_text(chosen.setting, True) in labels and words.MET in labels
    first = answer.walks[0]
    assert first.setting == chosen.setting
    assert _ringed(fig) == [pytest.approx((first.served, 0))]
    ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert ticks == [setting_text(w.setting) for w in answer.walks]
    served = {t.get_text() for t in fig.axes[0].texts}
    assert words.served_text(first.found) in served
    # each load marked served or not by the walk's own rule, as its headline counts it
    green = [c for c in fig.axes[0].collections if same_color(np.asarray(c.get_facecolor())[0], "tab:green")]
    dots = [(float(x), float(y)) for c in green for x, y in np.asarray(c.get_offsets())]
    for row, walk in enumerate(answer.walks):
        assert sorted(x for x, y in dots if y == row) == [load for load, _, _ in walk.found.loads
                                                          if walk.found.holds(load)]


def test_with_no_answer_the_figures_say_so_and_the_report_has_no_form(answer: LlmAnswer, tmp_path: Path) -> None:
    none = dataclasses.replace(answer, answer=None, fastest=None, gains=())
    assert words.NO_LLM_ANSWER in _labels(pareto_figure(none))
    assert words.NO_LLM_ANSWER in _labels(rounds_figure(none))
    assert _ringed(pareto_figure(none)) == []
    image = tmp_path / "x.png"
    image.write_bytes(b"")
    sections = llm_document(none, LlmFigures(image, None, None))
    assert [s.title for s in sections] == [words.ANSWER_SECTION, words.PARETO_SECTION, words.SEARCHED_SECTION]


def test_compare_sets_llm_files_side_by_side_and_refuses_another_load_or_kind(llm_db: Path, swept_db: Path,
                                                                             tmp_path: Path) -> None:
    copy = tmp_path / "copy.db"
    shutil.copy(llm_db, copy)
    said = _cli("compare", str(llm_db), str(copy))
    assert "file 1 deploys" in said and "file 2 deploys" in said and "differs: nothing recorded" in said
    rows = [line for line in said.splitlines() if line.startswith("  ")]
    assert rows and all(line.count("(1.00x)") == 1 for line in rows)  # a file against its copy: every ratio 1
    with sqlite3.connect(copy) as db:  # the copy now says it was measured with 3 users
        spec = json.loads(db.execute("SELECT spec FROM llm").fetchone()[0])
        db.execute("UPDATE llm SET spec = ?", (json.dumps({**spec, "load": {**spec["load"], "users": 3}}),))
    refused = CliRunner().invoke(app, ["compare", str(llm_db), str(copy)])
    assert refused.exit_code == 2 and "different loads or budgets" in refused.stderr
    mixed = CliRunner().invoke(app, ["compare", str(llm_db), str(swept_db)])
    assert mixed.exit_code == 2 and mixed.stderr.count("\n") == 1
    assert f"compare reads files of one kind: {llm_db} is an LLM's, {swept_db} (a sweep's) not" in mixed.stderr


def test_a_run_stopped_after_its_first_pass_says_one_pass_and_no_interval(answer: LlmAnswer) -> None:
    """Ctrl-C after the first pass leaves one pair of trials a baseline: its gain has no interval (NaN ends), which
    the words say instead of printing 'nan', and the pass is counted in the singular."""
    one = dataclasses.replace(answer, passes=1, gains=tuple(
        dataclasses.replace(g, ratio=Ratio(g.ratio.value, math.nan, math.nan, 1)) for g in answer.gains))
    assert one.gains
    text = "\n".join(f"{key} {value}" for key, value in answer_lines(one))
    assert "over 1 pass side by side" in text and "one pass, no interval" in text, text
    assert "nan" not in text.lower() and "no different" in text
    assert "its one pass" in words.rounds_title(one)
