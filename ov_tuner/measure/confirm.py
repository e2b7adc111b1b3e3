"""The confirmation round: the contenders of one device compiled side by side and measured interleaved.

Each contender keeps its compiled model and request queue alive for the whole round; passes alternate
direction (A B C, then C B A, ...) so that a drift of the host hits every contender alike, and every window
is stored as it completes. Which contenders: ov_tuner.search.confirm; how many passes and how long a
window: ConfirmRule.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import openvino as ov

from ov_tuner.devices.runtime import PointFailure
from ov_tuner.errors import OvTunerError
from ov_tuner.measure.engine import RequestLoop
from ov_tuner.model.inputs import InputData
from ov_tuner.schema import CompileInfo, ConfirmRule, Contender, PointConfig
from ov_tuner.search.confirm import pass_order
from ov_tuner.store.results import ResultStore

# Every contender warms up at least this long before the first pass: a new set of requests can start slow.
CONFIRM_WARMUP_S = 0.2

# Compiles one configuration for the round (raising PointFailure or OvTunerError where it cannot run).
Compile = Callable[[PointConfig], tuple[ov.CompiledModel, CompileInfo]]


def run_confirmation(compile_config: Compile, configs: list[PointConfig], store: ResultStore, device: str,
                     rule: ConfirmRule, data: InputData | None = None, stop: threading.Event | None = None,
                     warmup_s: float = CONFIRM_WARMUP_S) -> int:
    """Compile every configuration, then run `rule.rounds` passes of one window each, storing every window;
    returns how many configurations took part (one that no longer compiles is left out)."""
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
            contenders.append(Contender(config, info.num_streams, nireq))
        if len(contenders) < 2:
            return 0
        for loop in loops:
            loop.warm_up(max(warmup_s, CONFIRM_WARMUP_S))
        confirmation_id = store.begin_confirmation(device, contenders, rule.rounds, rule.window_s)
        visit = 0
        for round_index in range(rule.rounds):
            for position in pass_order(len(loops), round_index):
                if stop is not None and stop.is_set():
                    return len(contenders)
                window, latencies = loops[position].visit(rule.window_s)
                store.add_round_window(confirmation_id, round_index, visit, position, window, latencies)
                visit += 1
        return len(contenders)
    finally:
        for loop in loops:  # queues go before their compiled models
            loop.close()
        del loops, compiled
