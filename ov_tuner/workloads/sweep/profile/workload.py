"""A per-layer profile as a workload of the one driver (ov_tuner.engine.driver): no search and no rounds (the
configuration is given), one walk: the compiled model's closed loop for the profile's seconds, with OpenVINO's
PERF_COUNT counters read after every completion and summed (a request's counters describe its last inference), then
stored. Each layer's exec type names the kernel that ran (e.g. brgconv_avx512_amx_bf16), which shows the precision that
really executed."""

from __future__ import annotations

from dataclasses import dataclass

import openvino as ov

from ov_tuner.engine.driver import Steps, WalksOnly
from ov_tuner.measure.engine import measure
from ov_tuner.schema import LayerTime, PointConfig, Profile, StopRule
from ov_tuner.store.results import ResultStore


@dataclass
class ProfileWorkload(WalksOnly):
    """`config`, compiled with PERF_COUNT on, measured for `seconds` after `warmup_s`, into `store` (`profile`: once
    measured)."""

    compiled: ov.CompiledModel
    config: PointConfig
    seconds: float
    warmup_s: float
    store: ResultStore
    profile: Profile | None = None

    def walks(self) -> Steps:
        totals: dict[str, LayerTime] = {}
        run = measure(self.compiled, self.config.nireq, self.config.batch,
                      StopRule(window_s=self.seconds, fixed_s=self.seconds), self.warmup_s,
                      on_complete=lambda request: _add_layers(request, totals))
        self.profile = Profile(self.config, run.requests, float(run.latencies_ms.mean()), tuple(totals.values()))
        self.store.add_profile(self.profile)
        yield self.profile


def _add_layers(request: ov.InferRequest, totals: dict[str, LayerTime]) -> None:
    """Add the request's last inference: each executed layer's time."""
    for info in request.profiling_info:
        if info.status != ov.ProfilingInfo.Status.EXECUTED:
            continue
        ms = info.real_time.total_seconds() * 1000
        before = totals.get(info.node_name)
        total_ms, calls = (before.total_ms + ms, before.calls + 1) if before else (ms, 1)
        totals[info.node_name] = LayerTime(info.node_name, info.node_type, info.exec_type, total_ms, calls)
