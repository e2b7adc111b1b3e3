"""Pipeline figures: the cameras each split served, and where a frame's time goes per stage. Importing this module
imports matplotlib: commands import it only where they draw."""

from __future__ import annotations

import textwrap
from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ov_tuner.present.drawing import DEFAULT_MARKER, DEPLOYED_COLOUR, save_figure
from ov_tuner.present.words.marks import ANSWER_SPLIT, DEFAULT_SPLIT, split_mark_text
from ov_tuner.workloads.pipeline.answer_record import PipelineAnswer
from ov_tuner.workloads.pipeline.present.sections import PipelineFigures
from ov_tuner.workloads.pipeline.present.words import (
    ORIGIN_WORDS,
    failed_probes_text,
    headline_cameras_text,
    round_of,
    split_text,
    tried_cameras_text,
)
from ov_tuner.workloads.pipeline.schema import Origin

# The characters of the note under the axes a line holds, so that the figure keeps its width.
LABEL_CHARS = 140
COLOURS = {Origin.DEFAULT: "tab:gray", Origin.SOLO: "tab:orange", Origin.SHARED: "tab:purple",
           Origin.NEIGHBOUR: "tab:blue"}


def cameras_figure(answer: PipelineAnswer) -> Figure:
    """One bar per split measured, most cameras first, coloured by where it came from (hatched where its search was
    stopped); the answer's split outlined at the cameras its headline states, with their interval, and OpenVINO
    default's topped by a diamond, as every figure marks them; over the splits measured side by side, each pass's
    cameras and their mean with the passes' range. A neighbour that failed its one trial is listed under the axes,
    not drawn as a bar: it has no figure."""
    tried = sorted((t for t in answer.tried if not t.probe_failed), key=lambda t: -t.cameras)
    splits = [t.split for t in tried]
    extra = [r.split for r in answer.rounds if r.split not in splits]  # a contender the search did not list
    default = next((r.split for r in answer.rounds if r.origin is Origin.DEFAULT),
                   next((t.split for t in tried if t.origin is Origin.DEFAULT), None))
    fig = Figure(figsize=(max(7.0, 1.2 * (len(splits) + len(extra)) + 3), 5.5), layout="constrained")
    ax = fig.subplots()
    mine = round_of(answer, None)
    walked = mine.walked if mine is not None and answer.from_rounds else None
    for i, t in enumerate(tried):
        answer_bar = t.split == answer.split
        height = answer.cameras if answer_bar else t.cameras  # the answer's at its headline, the others' searched
        bar = ax.bar(i, height, color=COLOURS[t.origin], alpha=0.8, hatch=None if t.finished else "//",
                     edgecolor=DEPLOYED_COLOUR if answer_bar else "none", linewidth=3 if answer_bar else 0)
        marked = split_mark_text(answer_bar, t.split == default)
        count = headline_cameras_text(answer) if answer_bar else tried_cameras_text(t)
        ax.bar_label(bar, [count + (f"\n{marked}" if marked else "")],
                     label_type="center", fontsize=8, bbox={"facecolor": "white", "edgecolor": "none", "pad": 1})
        if answer_bar and walked is not None:  # the headline's interval, beside the passes' range
            ax.errorbar(i + 0.25, height, yerr=[[height - walked.low], [walked.high - height]], fmt="none",
                        color=DEPLOYED_COLOUR, capsize=4, zorder=4)
        if t.split == default:  # on the bar's top, left of the passes' range drawn at its centre
            ax.plot(i - 0.25, height, zorder=4, **DEFAULT_MARKER)  # type: ignore[arg-type]
    for r in answer.rounds:
        x = (splits + extra).index(r.split)
        ax.scatter([x] * len(r.per_pass), r.per_pass, color="black", s=12, alpha=0.5, zorder=3)
        if r.per_pass:
            low, high = min(r.per_pass), max(r.per_pass)
            ax.errorbar(x, r.mean, yerr=[[r.mean - low], [high - r.mean]], fmt="s", color="black", capsize=5,
                        zorder=4, label="passes: mean and range")
    labels = [split_text(answer.pipeline, s).replace(" | ", "\n") for s in splits + extra]
    ax.set_xticks(range(len(labels)), labels, fontsize=7)
    origins = dict.fromkeys(t.origin for t in tried)
    handles, _ = ax.get_legend_handles_labels()
    outline = Patch(fill=False, edgecolor=DEPLOYED_COLOUR, linewidth=3)
    marks: list[tuple[Patch | Line2D, str]] = [(outline, ANSWER_SPLIT)]
    if default in splits:
        marks.append((Line2D([], [], **DEFAULT_MARKER), DEFAULT_SPLIT))  # type: ignore[arg-type]
    ax.legend([*(m for m, _ in marks), *(Patch(color=COLOURS[o], alpha=0.8) for o in origins), *handles[:1]],
              [*(w for _, w in marks), *(ORIGIN_WORDS[o] for o in origins),
               *(["passes: mean and range"] if handles else [])], fontsize=8)
    ax.set_ylabel("cameras served")
    failed = failed_probes_text(answer)
    note = f"\n{textwrap.fill(failed, LABEL_CHARS)}" if failed else ""
    ax.set_xlabel(f"split (hatched: its search was stopped){note}", fontsize=8)
    ax.set_ylim(0, max([t.cameras for t in tried] + [answer.cameras] + ([walked.high] if walked else [])
                       + [c for r in answer.rounds for c in r.per_pass] + [1]) * 1.3)
    ax.grid(axis="y", alpha=0.3)
    target = answer.pipeline.target
    ax.set_title(f"{' -> '.join(s.name for s in answer.pipeline.stages)}: cameras served at {target.fps:g} FPS each, "
                 f"p{target.percentile:g} within {target.max_latency_ms:g} ms, per split of the device", wrap=True)
    return fig


def stages_figure(answer: PipelineAnswer) -> Figure:
    """Per stage, the decoder first: its milliseconds per frame at work and waiting for a free request or thread
    (runs per frame times the time per run), labelled with the share of its slots at work; the bottleneck in bold."""
    shares = answer.shares
    fig = Figure(figsize=(9, 0.6 * len(shares) + 2), layout="constrained")
    ax = fig.subplots()
    work = [s.busy_ms_per_frame for s in shares]
    wait = [s.wait_ms_per_frame for s in shares]
    ax.barh(range(len(shares)), work, color="tab:green", label="at work")
    ax.barh(range(len(shares)), wait, left=work, color="tab:red", alpha=0.6, label="waiting for a slot")
    for i, s in enumerate(shares):
        ax.text(work[i] + wait[i], i, f"  {s.utilisation:.0%} busy", va="center", fontsize=8)
    ax.set_yticks(range(len(shares)), [s.name for s in shares])
    for label, s in zip(ax.get_yticklabels(), shares, strict=True):
        if s.name == answer.bottleneck:
            label.set_fontweight("bold")
    ax.invert_yaxis()
    ax.set_xlim(0, max([a + b for a, b in zip(work, wait, strict=True)] + [1e-3]) * 1.25)
    ax.set_xlabel("ms per frame")
    ax.grid(axis="x", alpha=0.3)
    fig.legend(loc="outside lower center", ncols=2, fontsize=8)
    ax.set_title(f"Where a frame's time goes at {answer.overloaded_at} cameras (bottleneck: {answer.bottleneck})",
                 wrap=True)
    return fig


def write_pipeline_figures(answer: PipelineAnswer, out_dir: Path, fmt: str = "png") -> PipelineFigures:
    """The pipeline's two figures as files of format `fmt` (png, svg, pdf) in `out_dir`: for `plot` and the report."""
    return PipelineFigures(save_figure(cameras_figure(answer), out_dir, "pipeline_cameras", fmt),
                           save_figure(stages_figure(answer), out_dir, "pipeline_stages", fmt))
