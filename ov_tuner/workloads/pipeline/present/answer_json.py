"""The pipeline answer as data, for `recommend --format json`: every figure the terminal states, as the answer record
holds it (ov_tuner.workloads.pipeline.answer_record); it only formats."""

from __future__ import annotations

import math
from typing import Any

from ov_tuner.present.envelope import envelope, settle_json
from ov_tuner.workloads.pipeline.answer_record import (
    GAIN_CONFIDENCE,
    CameraGain,
    HarnessFigures,
    PipelineAnswer,
    RoundCameras,
    Tried,
)
from ov_tuner.workloads.pipeline.present.forms import stage_plan
from ov_tuner.workloads.pipeline.present.words import pipeline_rows
from ov_tuner.workloads.pipeline.schema import Split, StageRan, StageSetting


def pipeline_answer_json(answer: PipelineAnswer) -> dict[str, Any]:
    """The answer record as plain JSON values: every figure the terminal's rows say, and the rows (`says`)."""
    p, t = answer.pipeline, answer.pipeline.target
    body = {
        "pipeline": {"stages": [{**stage_plan(s), "precision": s.precision.value if s.precision else None}
                                for s in p.stages],
                     "video": {"file": p.video.file, "width": p.video.width, "height": p.video.height},
                     "target": {"fps": t.fps, "max_latency_ms": t.max_latency_ms, "percentile": t.percentile,
                                "arrival": t.arrival.value}},
        "cameras": answer.cameras, "finished": answer.finished, "from_rounds": answer.from_rounds,
        "cameras_interval": _cameras_interval(answer),
        "fps_held": answer.rounds[0].fps_at_headline if answer.rounds else None,
        "fps_held_interval": _held_interval(answer),
        "frames_held": _frames_held(answer),
        "split": _split(answer.split), "ran": [_ran(r) for r in answer.ran],
        "gains": [_gain(g) for g in answer.gains],
        "rounds": [_round(r) for r in answer.rounds],
        "bottleneck": answer.bottleneck, "overloaded_at": answer.overloaded_at,
        "harness": None if answer.harness is None else _harness(answer.harness),
        "shares": [{"name": s.name, "runs_per_frame": s.runs_per_frame, "busy_ms": s.busy_ms, "wait_ms": s.wait_ms,
                    "busy_ms_per_frame": s.busy_ms_per_frame, "wait_ms_per_frame": s.wait_ms_per_frame,
                    "utilisation": s.utilisation, "slots": s.slots} for s in answer.shares],
        "tried": [_tried(x) for x in answer.tried],
        "solo": [_setting_json(s) for s in answer.solo],
    }
    return envelope("pipeline", body, answer.box, None, None, dict(pipeline_rows(answer)))


def _cameras_interval(answer: PipelineAnswer) -> list[float] | None:
    """The headline's interval from the passes' pooled windows; null where it came from the search alone, or the
    walk stopped at its ceiling (no upper end)."""
    found = answer.rounds[0].walked if answer.from_rounds and answer.rounds else None
    return None if found is None or found.at_ceiling else [found.low, found.high]


def _frames_held(answer: PipelineAnswer) -> dict[str, float] | None:
    """The frames a second the answer held in all over its passes, with its interval (null with fewer than two)."""
    found = answer.rounds[0].frames_held if answer.from_rounds and answer.rounds else None
    return None if found is None else {"value": found[0], "low": found[1], "high": found[2]}


def _held_interval(answer: PipelineAnswer) -> list[float] | None:
    interval = answer.rounds[0].held_interval if answer.rounds else None
    return None if interval is None else list(interval)


def _setting_json(s: StageSetting) -> dict[str, Any]:
    return {"streams": s.streams, "nireq": s.nireq, "threads": s.threads, "default": s.default}


def _split(split: Split) -> dict[str, Any]:
    return {"stages": [_setting_json(s) for s in split.stages], "decode_threads": split.decode_threads}


def _ran(r: StageRan) -> dict[str, Any]:
    return {"properties": dict(r.properties), "nireq": r.nireq, "streams": r.streams, "precision": r.precision}


def _finite(value: float) -> float | None:
    """A figure, or null where there is none (an interval of fewer than two passes): JSON has no NaN."""
    return None if math.isnan(value) else value


def _harness(h: HarnessFigures) -> dict[str, Any]:
    c = h.ceiling
    return {"frames_per_s": c.frames_per_s, "reached": c.reached, "cameras": c.cameras,
            "served_frames_per_s": h.served_frames_per_s, "share": h.share, "limited": h.limited,
            "device_bound_frames_per_s": c.bound_frames_per_s, "decode_ms": c.decode_ms,
            "runs_per_frame": list(c.runs_per_frame), "solo_fps": list(c.solo_fps), "cores": c.cores}


def _gain(g: CameraGain) -> dict[str, Any]:
    return {"over": g.baseline.value, "difference": _finite(g.difference), "low": _finite(g.low),
            "high": _finite(g.high),
            "confidence": GAIN_CONFIDENCE, "passes": g.passes, "verdict": g.verdict.value,
            "measurable": g.verdict.told_apart,
            "cameras_ratio": None if g.ratio is None else g.ratio.as_json(),
            "arrivals_ratio": None if g.arrivals is None else g.arrivals.as_json(),
            "to_settle": settle_json(g.settle, "passes")}


def _round(r: RoundCameras) -> dict[str, Any]:
    return {"origin": r.origin.value if r.origin is not None else "answer", "split": _split(r.split),
            "per_pass": list(r.per_pass), "mean": r.mean, "interval": [_finite(v) for v in r.interval],
            "passes": list(r.numbers), "fps_held_per_pass": list(r.per_pass_fps),
            "arrivals_per_pass": r.arrivals.tolist(), "ran": [_ran(x) for x in r.ran]}


def _tried(x: Tried) -> dict[str, Any]:
    return {"split": _split(x.split), "origin": x.origin.value, "cameras": x.cameras, "finished": x.finished,
            "trials": x.trials}
