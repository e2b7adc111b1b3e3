"""Words for the pipeline answer (ov_tuner.workloads.pipeline.answer): the cameras it serves, the split that serves
them, its gain over each baseline, the stage that holds it back, and how each stage and split reads in the tables."""

from __future__ import annotations

from ov_tuner.engine.boundary import Boundary
from ov_tuner.present.words.box import box_text
from ov_tuner.present.words.numbers import edge_text, signed
from ov_tuner.present.words.plan import settle_text
from ov_tuner.schema import cell_text
from ov_tuner.workloads.pipeline.answer_record import (
    GAIN_CONFIDENCE,
    CameraGain,
    HarnessFigures,
    PipelineAnswer,
    RoundCameras,
    StageShare,
    Tried,
    Verdict,
)
from ov_tuner.workloads.pipeline.schema import DECODE, Origin, Pipeline, PipelineStage, Split, StageRan, StageSetting

ORIGIN_WORDS = {Origin.DEFAULT: "OpenVINO default", Origin.SOLO: "solo-tuned", Origin.SHARED: "cores shared by cost",
                Origin.NEIGHBOUR: "neighbour"}
# What each baseline runs, as its gain row says it.
BASELINE_WORDS = {Origin.SOLO: "every model at its own solo answer, run together",
                  Origin.DEFAULT: "every model at OpenVINO default, run together"}
GAIN_LABELS = {Origin.SOLO: "vs solo-tuned", Origin.DEFAULT: "vs default"}


def _count(n: float, unit: str, plural: str | None = None) -> str:
    """'1 stream', '2 requests', '3 passes' (`plural` where adding s does not make it)."""
    return f"{n:g} {unit if n == 1 else plural or unit + 's'}"


def pipeline_rows(answer: PipelineAnswer) -> list[tuple[str, str]]:
    """The answer's rows, label and words: serves, split, a row per baseline, bottleneck, and the box it ran in."""
    rows = [("serves", serves_text(answer)), ("split", split_text(answer.pipeline, answer.split, answer.ran))]
    rows += [(GAIN_LABELS[origin], text) for origin in BASELINE_WORDS
             if (text := baseline_text(answer, origin)) is not None]
    rows.append(("bottleneck", bottleneck_text(answer)))
    if answer.harness is not None:
        rows.append(("harness", harness_text(answer.harness)))
    if answer.box is not None:
        rows.append(("measured in", box_text(answer.box)))
    return rows


def serves_text(answer: PipelineAnswer) -> str:
    """'12 cameras (95%: 10..14) at 15 FPS each, p99 within 200 ms: the windows of 5 passes side by side, pooled (at
    the edge: 12 met 4 of 5, 13 met 1 of 5); at 12 cameras it held up to 16.2 FPS each (95%: 14.6..17.9); 193
    frames/s in all over its passes (95%: 176..212)' (the figure a rerun compares with, whatever count each pass
    served); from the search alone where no pass finished: 'at least 5 cameras ... (search interrupted)'."""
    t = answer.pipeline.target
    count = _count(answer.cameras, "camera") if answer.cameras else "no camera"
    rate = f"at {t.fps:g} FPS each, p{t.percentile:g} within {t.max_latency_ms:g} ms"
    mine = round_of(answer, None)
    if not answer.from_rounds or mine is None:
        bound = "" if answer.finished else "at least "
        how = "search confirmed" if answer.finished else "search interrupted"
        return f"{bound}{count} {rate} ({how}; no pass side by side finished)"
    passes = _count(len(mine.per_pass), "pass", "passes")
    found = mine.walked
    if found is None:  # a file written before the passes' windows were kept
        text = f"{count} {rate}: the median of {passes} side by side"
    else:
        edge = edge_text(found)
        text = (f"{count} {_within(found)} {rate}: the windows of {passes} side by side, pooled"
                + (f" (at the edge: {edge})" if edge else ""))
    held, frames = mine.fps_at_headline, mine.frames_held
    if held is not None and answer.cameras:
        interval = mine.held_interval
        within = f" ({GAIN_CONFIDENCE:.0%}: {interval[0]:.1f}..{interval[1]:.1f})" if interval else ""
        text += f"; at {count} it held up to {held:.1f} FPS each{within}"
        if frames is None:
            text += f", {held * answer.cameras:.0f} frames/s in all"
    if frames is not None:
        value, low, high = frames
        text += f"; {value:.0f} frames/s in all over its passes ({GAIN_CONFIDENCE:.0%}: {low:.0f}..{high:.0f})"
    return text


def stage_text(stage: PipelineStage, setting: StageSetting, ran: StageRan | None = None) -> str:
    """'detect CPU bf16 1 stream x 2 requests, 1 thread' (the precision by the name a sweep gives it: int8, not the
    u8 math it runs), 'detect CPU: OpenVINO default (2 x 2, ran f32)'; without `ran` (a split tried), what the split
    asks: 'detect 1 x 2, 1 thread', 'detect default'."""
    if ran is None:
        if setting.default:
            return f"{stage.name} default"
        threads = f", {_count(setting.threads, 'thread')}" if setting.threads else ""
        return f"{stage.name} {cell_text(setting.streams, setting.nireq)}{threads}"
    if setting.default:
        chose = cell_text(ran.streams, ran.nireq)
        return f"{stage.name} {stage.device}: OpenVINO default ({chose}, ran {ran.precision})"
    threads = f", {_count(setting.threads, 'thread')}" if setting.threads else ""
    precision = stage.precision.value if stage.precision is not None else ran.precision
    return (f"{stage.name} {stage.device} {precision} {_count(ran.streams, 'stream')} x "
            f"{_count(ran.nireq, 'request')}{threads}")


def decode_text(threads: int) -> str:
    """'decode 1 thread', or OpenCV's own choice."""
    return f"{DECODE} {_count(threads, 'thread')}" if threads else f"{DECODE} OpenCV's threads"


def split_text(pipeline: Pipeline, split: Split, ran: tuple[StageRan, ...] | None = None) -> str:
    """Every stage's setting, then the decoder's: 'detect ... | classify ... | decode 1 thread'."""
    stages = [stage_text(stage, setting, ran[i] if ran else None)
              for i, (stage, setting) in enumerate(zip(pipeline.stages, split.stages, strict=True))]
    return " | ".join([*stages, decode_text(split.decode_threads)])


def round_of(answer: PipelineAnswer, origin: Origin | None) -> RoundCameras | None:
    """The contender of the rounds from `origin` (None: the answer)."""
    return next((r for r in answer.rounds if r.origin is origin), None)


def baseline_split(answer: PipelineAnswer, origin: Origin) -> Split | None:
    """The split a baseline ran: from its rounds, else from the search's starting points."""
    found = round_of(answer, origin)
    if found is not None:
        return found.split
    return next((t.split for t in answer.tried if t.origin is origin), None)


def baseline_text(answer: PipelineAnswer, origin: Origin) -> str | None:
    """'+2.0 cameras (95%: +1.1..+2.9) and 1.41x the frames a second held (95%: 1.22..1.63x) over every model at its
    own solo answer, run together: 3.0 -> 5.0 cameras, 5 passes'; 'not shown to differ from ...' where the intervals
    say so or disagree (the analysis's verdict, worded); the answer being the baseline itself said so; None where the
    baseline was not measured."""
    name = BASELINE_WORDS[origin]
    if baseline_split(answer, origin) == answer.split:
        return f"the answer is {name}: {_kept_text(answer)}"
    gain = next((g for g in answer.gains if g.baseline is origin), None)
    if gain is None:
        return None
    if gain.verdict is Verdict.TOO_FEW:
        return (f"not compared with {name}: {_count(gain.passes, 'pass', 'passes')} side by side finished, and an "
                "interval needs two (the run was stopped before its passes)")
    cameras, held = _gain_figures(gain)
    figures = " and ".join(f for f in (cameras, held) if f)
    mine, theirs = round_of(answer, None), round_of(answer, origin)
    means = f": {theirs.mean:.1f} -> {mine.mean:.1f} cameras" if mine is not None and theirs is not None else ""
    tail = f"{means}, {_count(gain.passes, 'pass', 'passes')}"
    if gain.settle is not None:
        settle = gain.settle
        tail += f"; {settle_text(settle, ('pass', 'passes'), _count(round(settle.difference, 1), 'camera', 'cameras'))}"
    if gain.verdict.told_apart:
        return f"{figures} over {name}{tail}"
    if gain.verdict is Verdict.SPLIT:
        apart, not_apart = (cameras, held) if gain.cameras_clear else (held, cameras)
        return (f"not shown to differ from {name}: {apart} shows a change, but {not_apart} may show none, and a "
                f"change is claimed only where both show one{tail}")
    return f"not shown to differ from {name} ({figures}){tail}"


def _gain_figures(gain: CameraGain) -> tuple[str, str]:
    """'+2.0 cameras (95%: +1.1..+2.9)' (or '+1.0 cameras in every pass': never zero-wide) and '1.41x the frames a
    second held (95%: 1.22..1.63x)' ('' where the passes found no rate)."""
    cameras = (f"{signed(gain.difference)} cameras ({GAIN_CONFIDENCE:.0%}: {signed(gain.low)}..{signed(gain.high)})"
               if gain.high > gain.low else f"{signed(gain.difference)} cameras in every pass")
    a = gain.arrivals
    held = ("" if a is None else
            f"{a.value:.2f}x the frames a second held ({a.confidence:.0%}: {a.low:.2f}..{a.high:.2f}x)")
    return cameras, held


def _kept_text(answer: PipelineAnswer) -> str:
    """Why a baseline is the answer: nothing served more, or the rounds' leader was not shown to (the simpler kept)."""
    where = "in the rounds side by side" if answer.from_rounds else "in the search"
    if answer.leader is None or answer.leader.origin is None or answer.leader_gain is None:
        return f"no split served more {where}"
    figures = " and ".join(f for f in _gain_figures(answer.leader_gain) if f)
    return (f"the rounds' leader, the {ORIGIN_WORDS[answer.leader.origin]} split, was not shown to serve more "
            f"({figures} against it, {_count(answer.leader_gain.passes, 'pass', 'passes')}): the simpler is kept until "
            "another is shown to serve more")


def slots_text(share: StageShare) -> str:
    """A stage's slots: '2 requests', '1 decode thread'."""
    n, name = share.slots, share.name
    if name == DECODE:
        return _count(n, "decode thread") if n else "decode threads"
    return _count(n, "request")


def harness_text(h: HarnessFigures) -> str:
    """'ov-tuner's load harness carries 840 frames/s at this split with the device's work made trivial, and the
    answer holds 195 (23% of it); the device's bound from each stage alone and a frame's decode is 410 frames/s (the
    answer holds 48% of it)', or 'limited by ov-tuner's load harness at 840 frames/s: ...'."""
    c = h.ceiling
    carried = f"{c.frames_per_s:.0f} frames/s" + ("" if c.reached else " or more")
    served = f"{h.served_frames_per_s:.0f} frames/s"
    bound = (f"the device's bound from each stage alone and a frame's decode ({c.decode_ms:.2g} ms on one thread) is "
             f"{c.bound_frames_per_s:.0f} frames/s, and the answer holds {h.share_of_bound:.0%} of it")
    if h.limited:
        return (f"limited by ov-tuner's load harness at {carried}: the answer holds {served} ({h.share:.0%} of what "
                f"the harness carries at this split with the device's work made trivial), so the device may serve "
                f"more than it says; {bound}")
    return (f"ov-tuner's load harness carries {carried} at this split with the device's work made trivial, and the "
            f"answer holds {served} ({h.share:.0%} of it): the device, not the harness, set it; {bound}")


def bottleneck_text(answer: PipelineAnswer) -> str:
    """'classify: its 2 requests busy 97% of the time at 6 cameras; per frame it takes 4.1 ms at work and 12.0 ms
    waiting'; led by 'ov-tuner's load harness, not a stage' where the harness limited the answer."""
    if answer.harness is not None and answer.harness.limited:
        return f"ov-tuner's load harness, not a stage (see harness); the busiest stage: {_busiest(answer)}"
    return _busiest(answer)


def _busiest(answer: PipelineAnswer) -> str:
    share = next((s for s in answer.shares if s.name == answer.bottleneck), None)
    if share is None:
        return answer.bottleneck
    work, wait = share.busy_ms_per_frame, share.wait_ms_per_frame
    runs = "" if share.runs_per_frame == 1 else f" ({share.runs_per_frame:.3g} runs)"
    return (f"{share.name}: its {slots_text(share)} busy {share.utilisation:.0%} of the time at "
            f"{_count(answer.overloaded_at, 'camera')}; per frame{runs} it takes {work:.1f} ms at work and {wait:.1f} "
            "ms waiting")


def origin_text(answer: PipelineAnswer, origin: Origin | None, split: Split) -> str:
    """Where a split came from, and whether it is the answer: 'neighbour, the answer'."""
    words = ORIGIN_WORDS[origin] if origin is not None else "the answer"
    return f"{words}, the answer" if origin is not None and split == answer.split else words


def headline_cameras_text(answer: PipelineAnswer) -> str:
    """The answer's cameras as the serves line states them: '4 (95%: 3..6)', '4 or more', or 'at least 5' from a
    search interrupted."""
    mine = round_of(answer, None)
    found = None if mine is None or not answer.from_rounds else mine.walked
    if found is None:
        return str(answer.cameras) if answer.finished or answer.from_rounds else f"at least {answer.cameras}"
    return f"{answer.cameras} {_within(found)}"


def _within(found: Boundary) -> str:
    """'(95%: 3..6)', or 'or more' where the walk stopped at its ceiling."""
    return "or more" if found.at_ceiling else f"({GAIN_CONFIDENCE:.0%}: {found.low:g}..{found.high:g})"


def failed_probes_text(answer: PipelineAnswer) -> str | None:
    """'not served at the one count tried: fails at 7: detect ... | classify ...', the neighbours that failed their
    one trial, listed apart from the splits measured; more than two as a count ('8 neighbours, at 9 cameras: every
    split tried is in the report'); None: none."""
    failed = [t for t in answer.tried if t.probe_failed]
    if not failed:
        return None
    if len(failed) > 2:
        counts = sorted({t.fails_at for t in failed if t.fails_at is not None})
        return (f"not served at the one count tried: {len(failed)} neighbours, at "
                f"{' or '.join(map(str, counts))} cameras (every split tried is in the report)")
    return "not served at the one count tried: " + "; ".join(
        f"{tried_cameras_text(t)}: {split_text(answer.pipeline, t.split)}" for t in failed)


def tried_cameras_text(tried: Tried) -> str:
    """'5', 'at least 5' where its search was stopped, or 'fails at 12' for a neighbour that failed its one trial at
    one camera more than the best (it serves fewer; how many was not measured)."""
    if tried.probe_failed:
        return f"fails at {tried.fails_at}"
    return str(tried.cameras) if tried.finished else f"at least {tried.cameras}"


def unservable_text(answer: PipelineAnswer, results: str) -> str:
    """The one line for a rate no split served one camera at."""
    t = answer.pipeline.target
    return (f"no split served one camera at {t.fps:g} FPS with p{t.percentile:g} within {t.max_latency_ms:g} ms "
            f"({len(answer.tried)} tried): lower fps, raise max_latency_ms, or run a stage on fewer frames (every); "
            f"the trials are kept in {results}")
