"""What to deploy under a latency budget, and how: OpenVINO properties, a benchmark_app line, a config file."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass

from ov_tuner.analyse.answers import BaselineGain, baseline_gains, fastest, grid_points
from ov_tuner.errors import OvTunerError
from ov_tuner.schema import PointResult, Precision

PERCENTILES = (50, 90, 99)


class NothingMeetsBudget(OvTunerError):
    """No measured configuration is fast enough for the latency budget."""


def _percentile_name(percentile: int) -> str:
    return "median" if percentile == 50 else f"p{percentile}"


@dataclass(frozen=True)
class Recommendation:
    """The highest-throughput configuration within a latency budget, with the figures that make it win."""

    winner: PointResult
    runner_up: PointResult | None
    budget_ms: float | None
    percentile: int
    candidates: int
    baselines: tuple[BaselineGain, ...]
    reason: str


def recommend(points: list[PointResult], max_latency_ms: float | None = None, percentile: int = 90,
              device: str | None = None, precision: Precision | None = None) -> Recommendation:
    """Most FPS among grid points whose latency at `percentile` is within `max_latency_ms` (any, when None)."""
    if percentile not in PERCENTILES:
        raise ValueError(f"percentile must be one of {PERCENTILES}")
    pool = [p for p in grid_points(points)
            if (device is None or p.config.device == device) and (precision is None or p.config.precision is precision)]
    if not pool:
        scope = " ".join(x for x in (device, precision.value if precision else None) if x) or "these results"
        raise NothingMeetsBudget(f"no measured configuration for {scope}; check --device/--precision "
                                 "against `ov-tuner show`")
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
    assert winner is not None
    runner_up = fastest(p for p in within if p is not winner)
    scope = (f"the {len(within)} configurations with {name} latency <= {max_latency_ms:g} ms"
             if max_latency_ms is not None else f"all {len(within)} configurations")
    reason = (f"{winner.config.label()} has the highest throughput of {scope}: {winner.fps:.1f} FPS at "
              f"{winner.latency_ms(percentile):.2f} ms {name}")
    if runner_up is not None:
        reason += (f"; runner-up {runner_up.config.label()}: {runner_up.fps:.1f} FPS "
                   f"({runner_up.fps / winner.fps - 1:+.1%}) at {runner_up.latency_ms(percentile):.2f} ms {name}")
    return Recommendation(winner, runner_up, max_latency_ms, percentile, len(within),
                          tuple(baseline_gains(winner, points)), reason)


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
    args = ["benchmark_app", "-m", model, "-d", c.device, "-hint", "none", "-nstreams", str(point.streams),
            "-nireq", str(point.nireq), "-b", str(c.batch), "-infer_precision", properties["INFERENCE_PRECISION_HINT"]]
    notes = []
    if point.nireq < point.streams:
        notes.append(f"benchmark_app's -nireq caps NUM_STREAMS: this line runs {point.nireq} stream(s), "
                     f"not {point.streams}")
    load_config = json.dumps({c.device: properties}, indent=2)
    return DeploySnippets(properties, python, shlex.join(args), load_config, tuple(notes))
