"""What to deploy under a latency budget, and how: OpenVINO properties, a benchmark_app line, a config file."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ov_tuner.analyse.answers import BaselineGain, baseline_gains, fastest, grid_points
from ov_tuner.analyse.confirmed import ConfirmedAnswer, confirmed_answer
from ov_tuner.analyse.headtohead import HeadToHead, RoundFigures
from ov_tuner.errors import OvTunerError
from ov_tuner.schema import Confirmation, LatencyStats, Mode, PointResult, Precision

PERCENTILES = (50, 90, 99)


class NothingMeetsBudget(OvTunerError):
    """No measured configuration is fast enough for the latency budget."""


def _percentile_name(percentile: int) -> str:
    return "median" if percentile == 50 else f"p{percentile}"


@dataclass(frozen=True)
class Recommendation:
    """The highest-throughput configuration within a latency budget, with the figures that make it win.

    `answer` is the confirmation round's word where one measured the candidates head to head (then `fps` and
    `latency` are the round's figures); otherwise the choice rests on the search's separate measurements.
    """

    winner: PointResult
    fps: float
    latency: LatencyStats
    runner_up: PointResult | None
    budget_ms: float | None
    percentile: int
    candidates: int
    baselines: tuple[BaselineGain, ...]
    reason: str
    answer: ConfirmedAnswer | None = None
    excluded: tuple[str, ...] = ()  # precisions left out for losing too much output accuracy, each with why

    @property
    def confirmed(self) -> bool:
        return self.answer is not None

    def gain_lines(self) -> list[str]:
        """The gain over each hint baseline, and the precision ratios, each with its interval where confirmed."""
        if self.answer is None:
            return [g.reason for g in self.baselines]
        lines = []
        for s in self.answer.gains:
            c = s.figures.contender
            name = f"PERFORMANCE_HINT={c.config.mode.performance_hint} ({c.streams} x {c.nireq})"
            lines.append(f"{s.ratio.as_gain()} FPS over {name}, head to head" if s.ratio.clear else
                         f"no measurable difference from {name}: {s.ratio.as_gain()}, head to head")
        return lines + [r.reason for r in self.answer.precision_ratios]


def recommend(points: list[PointResult], max_latency_ms: float | None = None, percentile: int = 90,
              device: str | None = None, precision: Precision | None = None,
              confirmations: Sequence[Confirmation] = (),
              excluded: Mapping[tuple[str, Precision, int], str] | None = None) -> Recommendation:
    """Most FPS within `max_latency_ms` at `percentile` (any latency, when None): from the latest confirmation
    round where there is one, else from the grid points' own measurements. `excluded` (device, precision, batch)
    combinations, which lose too much output accuracy, are left out; the recommendation says which and why."""
    if percentile not in PERCENTILES:
        raise ValueError(f"percentile must be one of {PERCENTILES}")
    excluded = excluded or {}
    points = [p for p in points if (p.config.device, p.config.precision, p.config.batch) not in excluded]
    pool = [p for p in grid_points(points)
            if (device is None or p.config.device == device) and (precision is None or p.config.precision is precision)]
    if not pool:
        scope = " ".join(x for x in (device, precision.value if precision else None) if x) or "these results"
        raise NothingMeetsBudget(f"no measured configuration for {scope}; check --device/--precision "
                                 "against `ov-tuner show`")
    confirmed = _confirmed(points, max_latency_ms, percentile, device, precision, confirmations)
    if confirmed is not None:
        return replace(confirmed, excluded=tuple(excluded.values()))
    name = _percentile_name(percentile)
    within = [p for p in pool if max_latency_ms is None or p.latency_ms(percentile) <= max_latency_ms]
    if not within:
        quickest = min(pool, key=lambda p: p.latency_ms(percentile))
        raise NothingMeetsBudget(
            f"no configuration meets {name} latency <= {max_latency_ms:g} ms; the fastest is "
            f"{quickest.config.label()} at {quickest.latency_ms(percentile):.2f} ms {name} "
            f"({quickest.fps:.0f} FPS): raise --max-latency or try a smaller batch"
        )
    winner = fastest(within)
    assert winner is not None and winner.measurement is not None
    runner_up = fastest(p for p in within if p is not winner)
    scope = (f"the {len(within)} configurations with {name} latency <= {max_latency_ms:g} ms"
             if max_latency_ms is not None else f"all {len(within)} configurations")
    reason = (f"{winner.config.label()} has the highest throughput of {scope}: {winner.fps:.1f} FPS at "
              f"{winner.latency_ms(percentile):.2f} ms {name}")
    if runner_up is not None:
        reason += (f"; runner-up {runner_up.config.label()}: {runner_up.fps:.1f} FPS "
                   f"({runner_up.fps / winner.fps - 1:+.1%}) at {runner_up.latency_ms(percentile):.2f} ms {name}")
    reason += " (measured one after another, not confirmed head to head)"
    return Recommendation(winner, winner.fps, winner.measurement.latency, runner_up, max_latency_ms, percentile,
                          len(within), tuple(baseline_gains(winner, points)), reason, None, tuple(excluded.values()))


def _confirmed(points: list[PointResult], max_latency_ms: float | None, percentile: int, device: str | None,
               precision: Precision | None, confirmations: Sequence[Confirmation]) -> Recommendation | None:
    allowed = {p.config for p in points}
    """The recommendation from the latest confirmation round (every device of a sweep meets in one), or None where
    no round covers a candidate within the budget."""
    head = HeadToHead.of(confirmations[-1]) if confirmations else None
    answer = confirmed_answer(head, max_latency_ms, percentile, precision, device, allowed) if head is not None \
        else None
    if answer is None:
        return None
    stored = {p.config: p for p in points if p.ok}
    winner = stored.get(answer.deploy.contender.config)
    if winner is None:
        return None
    name = _percentile_name(percentile)
    budget = f"; within {name} latency <= {max_latency_ms:g} ms" if max_latency_ms is not None else ""
    reason = (f"{answer.reason}{budget}: {answer.deploy.fps:.1f} FPS at {answer.deploy.latency_ms(percentile):.2f} ms "
              f"{name}, head to head over {answer.deploy.windows} interleaved passes")
    return Recommendation(winner, answer.deploy.fps, answer.deploy.latency, None, max_latency_ms, percentile,
                          answer.candidates, (), reason, answer)


@dataclass(frozen=True)
class DeploySnippets:
    """Copy-paste forms of one configuration."""

    properties: dict[str, str]
    python: str
    benchmark_app: str
    load_config: str
    notes: tuple[str, ...]


def deploy_snippets(point: PointResult) -> DeploySnippets:
    """The configuration as `compile_model` properties, a benchmark_app line and a -load_config file,
    on the IR that ran (the FP16-compressed one for fp16)."""
    assert point.compile is not None, "only a compiled point can be deployed"
    c = point.config
    properties = dict(sorted(point.compile.requested.items()))
    model = point.compile.ir_path
    reshape = f"ov.set_batch(model, {c.batch})\n" if c.batch != 1 else ""
    python = (
        "import openvino as ov\n\n"
        "core = ov.Core()\n"
        f"model = core.read_model({model!r})\n"
        f"{reshape}"
        f"compiled = core.compile_model(model, {c.device!r}, {properties!r})\n"
        f"queue = ov.AsyncInferQueue(compiled, {point.nireq})\n"
    )
    if c.mode is Mode.GRID:
        threads = ["-hint", "none", "-nstreams", str(point.streams)]
    else:  # a hint baseline: OpenVINO chooses the streams again on the deployment machine
        threads = ["-hint", c.mode.performance_hint.lower()]
    args = ["benchmark_app", "-m", model, "-d", c.device, *threads, "-nireq", str(point.nireq), "-b", str(c.batch),
            "-infer_precision", properties["INFERENCE_PRECISION_HINT"]]
    notes = []
    if point.nireq < point.streams:
        notes.append(f"benchmark_app's -nireq caps NUM_STREAMS: this line runs {point.nireq} stream(s), "
                     f"not {point.streams}")
    load_config = json.dumps({c.device: properties}, indent=2)
    return DeploySnippets(properties, python, shlex.join(args), load_config, tuple(notes))


def recommendation_json(rec: Recommendation) -> dict[str, object]:
    """The recommendation as one JSON object: the configuration, its figures, whether a head-to-head round
    confirmed it, the configurations it is tied with and each gain with its interval."""
    c = rec.winner.config

    def config(figures: RoundFigures) -> dict[str, object]:
        k = figures.contender
        return {"precision": k.config.precision.value, "batch": k.config.batch, "streams": k.streams,
                "nireq": k.nireq, "mode": k.config.mode.value}

    answer = rec.answer
    return {
        "device": c.device, "precision": c.precision.value, "batch": c.batch, "streams": rec.winner.streams,
        "nireq": rec.winner.nireq, "mode": c.mode.value, "input_mode": c.input_mode.value,
        "fps": rec.fps, "latency_ms": {"median": rec.latency.median, "p90": rec.latency.p90, "p99": rec.latency.p99},
        "confirmed": rec.confirmed,
        "tied_with": [{**config(s.figures), "fps": s.figures.fps, "fps_ratio": s.ratio.as_json()}
                      for s in (answer.tied if answer else ())],
        "not_told_apart": [{**config(s.figures), "fps": s.figures.fps, "fps_ratio_to_leader": s.ratio.as_json()}
                           for s in (answer.unresolved if answer else ())],
        "gains": [{"over": config(s.figures), "fps_ratio": s.ratio.as_json(), "measurable": s.ratio.clear}
                  for s in (answer.gains if answer else ())]
                 + [{"over": {"mode": g.baseline.config.mode.value, "streams": g.baseline.streams,
                              "nireq": g.baseline.nireq}, "fps_ratio": {"ratio": g.fps_gain + 1}, "measurable": None}
                    for g in rec.baselines],
        "precision_ratios": [{"batch": r.batch, "numerator": r.numerator.contender.config.precision.value,
                              "denominator": r.denominator.contender.config.precision.value,
                              "fps_ratio": r.ratio.as_json(), "measurable": r.ratio.clear}
                             for r in (answer.precision_ratios if answer else ())],
        "budget_ms": rec.budget_ms, "percentile": rec.percentile, "reason": rec.reason,
        "excluded_for_accuracy": list(rec.excluded),
    }
