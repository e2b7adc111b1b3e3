"""The confirmation round: the contenders of one device compiled side by side and measured interleaved.

Each contender keeps its compiled model and request queue alive for the whole round; the passes, their order
and which contenders take them run in ov_tuner.engine.rounds (this module measures a visit and stores its window
as it completes). Which contenders: ov_tuner.workloads.sweep.contenders; how many passes, how long a window and the
budget: ConfirmRule.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

import openvino as ov

from ov_tuner.devices.compiler import Compiler
from ov_tuner.devices.native import PointFailure
from ov_tuner.engine.driver import Rounds
from ov_tuner.engine.rounds import RoundLimits, run_rounds
from ov_tuner.errors import OvTunerError
from ov_tuner.measure.engine import RequestLoop
from ov_tuner.model.inputs import InputData
from ov_tuner.schema import CompileInfo, ConfirmRule, Contender, PointConfig, PointResult, RoundWindow
from ov_tuner.store.results import ResultStore
from ov_tuner.workloads.sweep.contenders import plan_confirmation
from ov_tuner.workloads.sweep.notices import Confirming
from ov_tuner.workloads.sweep.plan import PlannedSpace
from ov_tuner.workloads.sweep.progress import SweepProgress

# Every contender warms up at least this long before the first pass: a new set of requests can start slow (each
# visit fills the requests again before its window, so a sweep's own warm-up is enough).
CONFIRM_WARMUP_S = 0.1

# Compiles one configuration for the round (raising PointFailure or OvTunerError where it cannot run).
Compile = Callable[[PointConfig], tuple[ov.CompiledModel, CompileInfo]]


def run_confirmation(compile_config: Compile, configs: list[PointConfig], store: ResultStore, device: str,
                     rule: ConfirmRule, budget_s: float = float("inf"), data: InputData | None = None,
                     stop: threading.Event | None = None, warmup_s: float = CONFIRM_WARMUP_S,
                     twins: Collection[PointConfig] = ()) -> int:
    """A confirmation round alone (a benchmark's, a test's): confirmation_round's contenders in their passes;
    returns how many configurations took part."""
    with confirmation_round(compile_config, configs, store, device, rule, budget_s=budget_s, data=data,
                            warmup_s=warmup_s, twins=twins) as rounds:
        if rounds is None:
            return 0
        run_rounds(rounds.visit, rounds.candidates, rounds.limits, stop=stop)
        return len(rounds.candidates)


@contextmanager
def confirmation_round(compile_config: Compile, configs: list[PointConfig], store: ResultStore, device: str,
                       rule: ConfirmRule, budget_s: float = float("inf"), data: InputData | None = None,
                       warmup_s: float = CONFIRM_WARMUP_S,
                       twins: Collection[PointConfig] = ()) -> Iterator[Rounds | None]:
    """Compile every configuration and warm it up, then hand the rounds engine its contenders (`rule.passes` passes
    over all of them, then the ones still open, while the whole round stays within `budget_s`), each visit one
    window stored as it completes; None where fewer than two compile (one that no longer compiles is left out).
    `twins` are references measured beside their hint baselines. The compiled models live until the round ends."""
    started = time.perf_counter()
    compiled: list[ov.CompiledModel] = []
    loops: list[RequestLoop] = []
    contenders: list[Contender] = []
    try:
        for config in configs:
            try:
                model, info = compile_config(config)
            except (PointFailure, OvTunerError):
                continue
            nireq = config.nireq or info.optimal_nireq
            compiled.append(model)
            loops.append(RequestLoop(model, nireq, config.batch, config.input_mode, data))
            contenders.append(Contender(config, info.num_streams, nireq, info, config in twins))
        if len(contenders) < 2:
            yield None
            return
        for loop in loops:
            loop.warm_up(max(warmup_s, CONFIRM_WARMUP_S))
        budget_left = max(0.0, budget_s - (time.perf_counter() - started))
        window_s = rule.window_for(len(contenders), budget_left)
        confirmation_id = store.begin_confirmation(device, contenders, rule.passes, window_s)
        visits = 0

        def visit(position: int, number: int) -> float:
            nonlocal visits
            window, latencies = loops[position].visit(window_s, rule.visit_requests)
            store.add_round_window(confirmation_id, RoundWindow(number, visits, position, window, latencies))
            visits += 1
            return window.fps

        limits = RoundLimits(rule.passes, max(rule.passes, rule.max_passes), budget_left)
        yield Rounds(visit, [c.candidate for c in contenders], limits)
    finally:
        for loop in loops:  # queues go before their compiled models
            loop.close()
        loops.clear()
        compiled.clear()


def sweep_confirmation(compiler: Compiler, store: ResultStore, progress: SweepProgress, points: list[PointResult],
                       spaces: list[PlannedSpace], rule: ConfirmRule, data: InputData,
                       warmup_s: float) -> AbstractContextManager[Rounds | None]:
    """One confirmation round over every device's contenders, so that devices too are compared head to head (None
    when there are fewer than two, or a round already did)."""
    planned = plan_confirmation(points, spaces)
    if len(planned.configs) < 2 or store.has_confirmation(planned.configs):
        return nullcontext(None)
    progress.note(Confirming(len(planned.configs)))
    devices = {s.device.name: s.device for s in spaces}
    search_s = sum(p.measurement.wall_s for p in points if p.measurement is not None)
    return confirmation_round(lambda config: compiler.compile(config.compile_key, devices[config.device]),
                              planned.configs, store, ",".join(devices), rule=rule,
                              budget_s=rule.budget_s(search_s, len(planned.configs)), data=data, warmup_s=warmup_s,
                              twins=planned.twins)
