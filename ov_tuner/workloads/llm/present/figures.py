"""An LLM's figures, drawn from its answer record alone (ov_tuner.workloads.llm.answer.LlmAnswer): the search's
output tokens/s against TTFT p90 with its Pareto front, each contender's passes of the rounds, and the walk to the
most users served. Each marks the setting to deploy (ringed, or its line in the answer's colour) and GenAI left
alone (a diamond for the scheduler's default, a square for LLMPipeline's), as the sweep's figures mark the deployed
configuration and OpenVINO default. Importing this module imports matplotlib: commands import it only where they
draw."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ov_tuner.present.drawing import DEPLOYED_COLOUR, save_figure
from ov_tuner.present.labels import PointName, name_points
from ov_tuner.workloads.llm.answer_record import BASELINES, LlmAnswer
from ov_tuner.workloads.llm.present import words_report as words
from ov_tuner.workloads.llm.present.words_setting import setting_text
from ov_tuner.workloads.llm.schema import OVMS_DEFAULT, PIPELINE_DEFAULT, SCHEDULER_DEFAULT, LlmSetting

# GenAI left alone, a shape each; the answer ringed. Hollow shapes, so that the point under them shows.
BASELINE_MARKERS = {SCHEDULER_DEFAULT: "D", PIPELINE_DEFAULT: "s", OVMS_DEFAULT: "^"}
RING: dict[str, Any] = {"marker": "o", "markersize": 17, "markerfacecolor": "none", "markeredgecolor": DEPLOYED_COLOUR,
        "markeredgewidth": 2.5, "linestyle": ""}
# The rounds' other contenders: no red, which is the answer's.
COLOURS = ("tab:blue", "tab:green", "tab:purple", "tab:brown", "tab:olive", "tab:cyan", "tab:orange", "tab:gray")
# A TTFT budget further right than this many times the slowest point is named, not drawn: drawn, it would crowd
# every point against the left edge.
BUDGET_REACH = 3.0


def _baseline_style(setting: LlmSetting) -> dict[str, Any]:
    return {"marker": BASELINE_MARKERS[setting], "markersize": 12, "markerfacecolor": "none",
            "markeredgecolor": "black", "markeredgewidth": 2, "linestyle": ""}


def _marks(ax: Axes, at: Mapping[LlmSetting, tuple[float, float]], answer: LlmAnswer) -> list[Line2D]:
    """The answer's setting ringed and each baseline shaped where `at` places them: the legend entries naming them."""
    chosen = answer.answer.setting if answer.answer is not None else None
    if chosen is None:
        handles = [Line2D([], [], linestyle="", label=words.NO_LLM_ANSWER)]
    else:
        handles = [Line2D([], [], label=words.deployed_mark_text(chosen, chosen in at), **RING)]
        if chosen in at:
            ax.plot(*at[chosen], zorder=5, **RING)
    for baseline in BASELINES:
        if baseline in at:
            ax.plot(*at[baseline], zorder=5, **_baseline_style(baseline))
            handles.append(Line2D([], [], label=words.baseline_mark_text(baseline), **_baseline_style(baseline)))
    return handles


def pareto_figure(answer: LlmAnswer) -> Figure:
    """Every setting searched, output tokens/s against TTFT (left) and TPOT (right) at the budget's percentile, each
    named, none over another (hollow where it missed the budget, crossed where held back); the Pareto front of
    tokens/s against TTFT joined; each budget's line on its panel, so a point that missed shows which it crossed; the
    answer and GenAI left alone marked."""
    searched, budget = answer.searched, answer.job.budget
    fig = Figure(figsize=(14, 6.5), layout="constrained")
    ttft_ax, tpot_ax = fig.subplots(1, 2, sharey=True)
    handles: list[Line2D] = []
    # each setting where each panel places it: TTFT, then TPOT, at the budget's percentile (a TPOT may be unmeasured)
    placed = [{f.setting: (f.at_budget[side], f.tokens_per_s) for f in searched if math.isfinite(f.at_budget[side])}
              for side in (0, 1)]
    for ax, side, limit in ((ttft_ax, 0, budget.ttft_ms), (tpot_ax, 1, budget.tpot_ms)):
        at = placed[side]
        _points(ax, at, answer)
        marks = _marks(ax, at, answer)
        handles = handles or marks
        if limit is not None:
            shown = limit <= BUDGET_REACH * max([x for x, _ in at.values()] + [1e-3])
            if shown:  # the axis stretches to take it in
                ax.axvline(limit, color="tab:red", linestyle="--")
            handles.append(Line2D([], [], color="tab:red", linestyle="--" if shown else "",
                                  label=words.budget_mark_text(budget, side, shown)))
        ax.margins(0.12)  # room for the names beside the points
        ax.set_xlabel(words.latency_axis(side, budget.percentile))
        ax.grid(alpha=0.3)
    front = sorted((placed[0][f.setting] for f in answer.pareto), key=lambda xy: xy[0])
    ttft_ax.plot([x for x, _ in front], [y for _, y in front], color="black", linewidth=1.5, zorder=2)
    handles.append(Line2D([], [], color="black", label=words.FRONT))
    if not all(f.meets for f in searched):
        handles.append(Line2D([], [], marker="o", linestyle="", markerfacecolor="none", markeredgecolor="tab:blue",
                              label=words.MISSED))
    if answer.held_back:
        handles.append(Line2D([], [], marker="x", linestyle="", color="tab:gray", label=words.HELD_BACK))
    ttft_ax.set_ylabel(words.TOKENS_AXIS)
    ttft_ax.legend(handles=handles, fontsize=8, loc="best")
    fig.suptitle(words.pareto_title(answer), wrap=True)
    on_front = {f.setting for f in answer.pareto}
    fastest_first = sorted(searched, key=lambda f: -f.tokens_per_s)
    for ax, at in ((ttft_ax, placed[0]), (tpot_ax, placed[1])):
        name_points(fig, ax, [PointName(at[f.setting], setting_text(f.setting), 8 if f.setting in on_front else 7,
                                        "black" if f.setting in on_front else "#555555")
                              for f in fastest_first if f.setting in at])
    return fig


def _points(ax: Axes, at: Mapping[LlmSetting, tuple[float, float]], answer: LlmAnswer) -> None:
    """The settings at `at`: filled where they met the budget, hollow where not; held-back ones crossed."""
    for meets in (True, False):
        xy = [at[f.setting] for f in answer.searched if f.meets is meets and f.setting in at]
        ax.scatter([x for x, _ in xy], [y for _, y in xy], s=40, zorder=3, edgecolors="tab:blue",
                   facecolors="tab:blue" if meets else "none")
    held = [at[f.setting] for f in answer.held_back if f.setting in at]
    ax.scatter([x for x, _ in held], [y for _, y in held], marker="x", color="tab:gray", s=90, zorder=4)


def rounds_figure(answer: LlmAnswer) -> Figure:
    """Each contender's output tokens/s in each pass, a line per contender, so that the passes pair them (a gap: the
    pass failed it); the answer's line thick in its colour, GenAI left alone's in its shapes."""
    trials = [t for t in answer.trials if t.in_rounds]
    contenders = list(dict.fromkeys(t.setting for t in trials))
    chosen = answer.answer.setting if answer.answer is not None else None
    passes = list(range(1, answer.passes + 1))
    fig = Figure(figsize=(10, 5.5), layout="constrained")
    ax = fig.subplots()
    for i, setting in enumerate(contenders):
        per_pass = {t.pass_number + 1: t.tokens_per_s for t in trials
                    if t.setting == setting and t.ok and t.pass_number is not None}
        mine, shaped = setting == chosen, setting in BASELINE_MARKERS
        colour = DEPLOYED_COLOUR if mine else COLOURS[i % len(COLOURS)]
        label = (words.deployed_mark_text(setting, True) if mine else
                 words.baseline_mark_text(setting) if shaped else setting_text(setting))
        ax.plot(passes, [per_pass.get(p, math.nan) for p in passes], label=label, color=colour,
                linewidth=3 if mine else 1.5, marker=BASELINE_MARKERS.get(setting, "o"), markersize=10 if shaped else 6,
                markerfacecolor="white" if shaped else colour, markeredgecolor=colour, markeredgewidth=2)
    handles, _ = ax.get_legend_handles_labels()
    if chosen is None:
        handles.insert(0, Line2D([], [], linestyle="", label=words.NO_LLM_ANSWER))
    ax.set_xticks(passes)
    ax.set_xlabel(words.PASS_AXIS)
    ax.set_ylabel(words.TOKENS_AXIS)
    ax.set_ylim(0, max([t.tokens_per_s for t in trials] + [1.0]) * 1.15)
    ax.grid(alpha=0.3)
    ax.legend(handles=handles, fontsize=8, loc="best")
    ax.set_title(words.rounds_title(answer), wrap=True)
    return fig


def users_figure(answer: LlmAnswer) -> Figure:
    """A row per setting walked: each count of users tried, served by the walk's own rule (a dot) or not (a cross),
    and the most it serves; the answer ringed and GenAI left alone shaped at the most users each serves (the fewest
    tried, where none met)."""
    walks = answer.walks
    fig = Figure(figsize=(10, 0.8 * len(walks) + 2.5), layout="constrained")
    ax = fig.subplots()
    for row, walk in enumerate(walks):
        counts = [load for load, _, _ in walk.found.loads]
        ax.plot(counts, [row] * len(counts), color="lightgray", zorder=1)
        for ok, style in ((True, {"marker": "o", "color": "tab:green"}), (False, {"marker": "x", "color": "tab:red"})):
            hits = [load for load, _, _ in walk.found.loads if walk.found.holds(load) is ok]
            ax.scatter(hits, [row] * len(hits), s=60, zorder=3, **style)  # type: ignore[arg-type]
        ax.annotate(words.served_text(walk.found), (max(counts), row), textcoords="offset points",
                    xytext=(14, 0), va="center", fontsize=8)
    at = {w.setting: (float(w.served or w.found.loads[0][0]), float(row)) for row, w in enumerate(walks)}
    handles = [*_marks(ax, at, answer), Line2D([], [], marker="o", linestyle="", color="tab:green", label=words.MET),
               Line2D([], [], marker="x", linestyle="", color="tab:red", label=words.NOT_MET)]
    counts = sorted({load for w in walks for load, _, _ in w.found.loads})
    ax.set_xscale("log", base=2)
    ax.set_xticks(counts, [f"{n:g}" for n in counts])
    ax.minorticks_off()
    ax.set_xlim(counts[0] / 1.5, counts[-1] * 3)  # room on the right for what each serves
    ax.set_yticks(range(len(walks)), [setting_text(w.setting) for w in walks])
    ax.set_ylim(len(walks) - 0.5, -0.5)  # the answer's walk on top
    ax.set_xlabel(words.USERS_AXIS if answer.job.load.closed else words.RATE_AXIS)
    ax.grid(axis="x", alpha=0.3)
    fig.legend(handles=handles, loc="outside lower center", ncols=2, fontsize=8)
    ax.set_title(words.users_title(answer), wrap=True)
    return fig


@dataclass(frozen=True)
class LlmFigures:
    """The figure files of an LLM's results, None where the record holds nothing to draw (no rounds, no walk)."""

    pareto: Path | None
    rounds: Path | None
    users: Path | None

    def all(self) -> list[Path]:
        return [p for p in (self.pareto, self.rounds, self.users) if p is not None]


def write_llm_figures(answer: LlmAnswer, out_dir: Path, fmt: str = "png") -> LlmFigures:
    """Every figure the record supports, as files of format `fmt` (png, svg, pdf) in `out_dir`."""
    return LlmFigures(
        pareto=save_figure(pareto_figure(answer), out_dir, "llm_pareto", fmt) if answer.searched else None,
        rounds=save_figure(rounds_figure(answer), out_dir, "llm_rounds", fmt) if answer.passes else None,
        users=save_figure(users_figure(answer), out_dir, "llm_users", fmt) if answer.walks else None)
