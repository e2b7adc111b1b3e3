"""`recommend --json` for a single model: the answer record (ov_tuner.analyse.answer) as one JSON object in the
shared envelope (ov_tuner.present.envelope), in figures, with the sentence each terminal row says beside them. Its
shape is documented in docs/answer-json.md."""

from __future__ import annotations

from typing import Any

from ov_tuner.analyse.answer import Answer
from ov_tuner.analyse.caveat import WIDE_SPAN, Caveat
from ov_tuner.analyse.precisions import PrecisionSpeed
from ov_tuner.present.envelope import envelope, settle_json
from ov_tuner.schema import Accuracy, Contender, Mode, PointResult
from ov_tuner.stats.headtohead import Ratio, RoundFigures
from ov_tuner.workloads.sweep.present.words.accuracy import breach_text
from ov_tuner.workloads.sweep.present.words.answer import recommendation_text, rule_text
from ov_tuner.workloads.sweep.present.words.short import answer_rows


def answer_json(answer: Answer) -> dict[str, Any]:
    """The answer as plain JSON values: what the terminal's rows say (`says`), and every figure behind them."""
    rec, confirmed = answer.recommendation, answer.recommendation.answer
    body: dict[str, Any] = {
        "results": str(answer.results),
        "model": answer.model,
        "deploy": {**_configuration(rec.winner), "properties": rec.winner.deploy_properties()},
        "speed": {"fps": rec.fps, "latency_ms": _latency(rec.latency), "confirmed": rec.confirmed,
                  "passes": confirmed.deploy.windows if confirmed else None},
        "budget": {"max_latency_ms": rec.budget_ms, "percentile": rec.percentile},
        "rule": {"name": confirmed.rule.value if confirmed else "unconfirmed",
                 "decided_by": confirmed.decided_by.value if confirmed and confirmed.decided_by else None,
                 "within_noise_of_fastest": len(confirmed.near) + 1 if confirmed else None,
                 "says": rule_text(rec)},
        "leader": _figures(confirmed.leader) if confirmed else None,
        "within_noise": [_standing(s) for s in (confirmed.near if confirmed else ())],
        "not_told_apart": [_standing(s) for s in (confirmed.unresolved if confirmed else ())],
        "runner_up": None if confirmed is None or confirmed.runner_up is None else {
            **_standing(confirmed.runner_up), "leader_fps_ratio": confirmed.runner_up.ratio.reciprocal().as_json()},
        "gains": ([{"over": _configuration(s.figures.contender), "fps_ratio": s.ratio.as_json(),
                    "measurable": s.ratio.clear, "p90_ratio": _ratio(s.p90), "head_to_head": True,
                    "to_settle": settle_json(s.settle, "passes")}
                   for s in (confirmed.gains if confirmed else ())]
                  + [{"over": _configuration(g.baseline), "fps_ratio": {"ratio": g.fps_gain + 1},
                      "measurable": None, "head_to_head": False} for g in rec.baselines]),
        "precisions": {
            "ran": [{"precision": p.value, "ran": words} for p, words in answer.ran],
            "measured_as_another": [{"precision": m.precision.value, "measured_as": m.measured_as.value,
                                     "reason": m.reason.value, "ran": m.ran} for m in answer.merged],
            "ratios": [{"device": r.numerator.contender.config.scope, "batch": r.batch,
                        "numerator": _figures(r.numerator), "denominator": _figures(r.denominator),
                        "fps_ratio": r.ratio.as_json(), "measurable": r.ratio.clear}
                       for r in (confirmed.precision_ratios if confirmed else ())],
        },
        "int8": None if answer.int8 is None else {
            "against_fp32": _speed(answer.int8.against_fp32),
            "against_fastest_float": _speed(answer.int8.against_fastest_float),
            "accuracy": _accuracy(answer.int8.accuracy),
            "quantization": None if answer.quantization is None else {
                "given": answer.quantization.given, "on_images": answer.quantization.images,
                "calibration_inputs": answer.quantization.calibration, "held_apart": answer.quantization.held_apart,
                "quantized_operations": answer.quantization.quantized_ops,
                "max_drop": answer.quantization.options.max_drop, "nncf_version": answer.quantization.nncf_version,
                "command": answer.quantization.command},
        },
        "accuracy_limit": {"min_cosine": answer.limit.min_cosine, "min_top1": answer.limit.min_top1,
                           "min_top_boxes": answer.limit.min_top_boxes, "min_mask_iou": answer.limit.min_mask_iou,
                           "proof_needed": answer.limit.proof_needed},
        "excluded": [{"device": b.accuracy.device, "precision": b.accuracy.precision.value,
                      "batch": b.accuracy.batch, "figure": b.figure, "value": b.value, "least": b.least,
                      "says": breach_text(b)} for b in rec.excluded],
    }
    held_back = None if rec.held_back is None else {
        **_configuration(rec.held_back.winner), "fps_ratio_to_deployed": rec.held_back.fps_ratio,
        "head_to_head": _ratio(rec.held_back.ratio), "figure": rec.held_back.breach.figure,
        "value": rec.held_back.breach.value, "least": rec.held_back.breach.least}
    return envelope("model", body, answer.box, caveat_json(answer.caveat), held_back,
                    {"verdict": recommendation_text(rec), **dict(answer_rows(answer))})


def _configuration(p: PointResult | Contender) -> dict[str, Any]:
    """A configuration, stored point or round contender: what was asked (no precision for OpenVINO default, which
    asks for none), the streams and requests it ran and what precision it ran."""
    c = p.config
    return {"device": c.scope, "mode": c.mode.value, "precision": None if c.mode is Mode.DEFAULT else c.precision.value,
            "batch": c.batch, "streams": p.streams, "nireq": p.nireq, "input_mode": c.input_mode.value,
            "ran": p.compile.ran if p.compile is not None else None, "name": c.short_label(p.streams, p.nireq)}


def _figures(f: RoundFigures) -> dict[str, Any]:
    return {**_configuration(f.contender), "fps": f.fps, "latency_ms": _latency(f.latency), "passes": f.windows}


def _standing(s: Any) -> dict[str, Any]:
    return {**_figures(s.figures), "fps_ratio_to_leader": s.ratio.as_json()}


def _latency(lat: Any) -> dict[str, float]:
    return {"median": lat.median, "p90": lat.p90, "p99": lat.p99}


def _ratio(r: Ratio | None) -> dict[str, float] | None:
    return None if r is None else r.as_json()


def _speed(s: PrecisionSpeed | None) -> dict[str, Any] | None:
    if s is None:
        return None
    return {"against": s.against.value, "fps_ratio_apart": s.apart, "head_to_head": _ratio(s.confirmed)}


def _accuracy(a: Accuracy | None) -> dict[str, Any] | None:
    if a is None:
        return None
    return {"device": a.device, "precision": a.precision.value, "batch": a.batch, "inputs": a.inputs,
            "cosine": a.cosine, "top1": a.top1, "top_boxes": a.top_boxes, "mask_iou": a.mask_iou,
            "max_abs": a.max_abs, "integer_equal": a.integer_equal, "error": a.error}


def caveat_json(caveat: Caveat | None) -> dict[str, Any] | None:
    """The caveat with its figures (a wide interval's ratio and the span it passed)."""
    if caveat is None:
        return None
    return {"kind": caveat.kind.value, "accuracy": _accuracy(caveat.accuracy), "not_told_apart": caveat.open_count,
            "median_fps_cv": caveat.median_cv,
            "wide": None if caveat.wide is None else {**caveat.wide.ratio.as_json(), "span_limit": WIDE_SPAN}}
