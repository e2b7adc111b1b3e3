"""Cold start as a workload of the one driver (ov_tuner.engine.driver): no search and no rounds (the configuration is
given), one walk of `repeats` samples. A process that has already read or compiled a model keeps caches warm (plugin,
kernels, file pages of the IR aside), so each sample runs three new interpreters
(ov_tuner.workloads.sweep.coldstart.probe):
one without a model cache (read, compile, first inference, then the steady median after warm-up), one that compiles
with an empty CACHE_DIR (writing the blob) and one that compiles from that CACHE_DIR. Each sample is stored as it is
taken."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ov_tuner.engine.driver import Steps, WalksOnly
from ov_tuner.schema import ColdStart, ColdStartSample, CompileKey
from ov_tuner.store.results import ResultStore
from ov_tuner.workloads.sweep.coldstart.probe import spawn

SampleSeen = Callable[[ColdStartSample], None]


@dataclass
class ColdStartWorkload(WalksOnly):
    """`repeats` samples of `key` read from the IR `probe` names, each stored in `store` as it is taken (`cold`: those
    taken so far)."""

    key: CompileKey
    probe: dict[str, Any]
    repeats: int
    store: ResultStore
    on_sample: SampleSeen | None = None
    cold: ColdStart = field(init=False)

    def __post_init__(self) -> None:
        self.cold = ColdStart(self.key, ())

    def walks(self) -> Steps:
        coldstart_id = self.store.begin_coldstart(self.key)
        for _ in range(self.repeats):
            plain = spawn({**self.probe, "steady": True})
            with tempfile.TemporaryDirectory(prefix="ov-tuner-cache-") as cache:
                write = spawn({**self.probe, "cache_dir": cache})
                hit = spawn({**self.probe, "cache_dir": cache})
            sample = ColdStartSample(
                read_ms=plain["read_ms"], compile_ms=plain["compile_ms"], first_infer_ms=plain["first_infer_ms"],
                steady_median_ms=plain["steady_median_ms"], cache_write_compile_ms=write["compile_ms"],
                cache_compile_ms=hit["compile_ms"], cache_first_infer_ms=hit["first_infer_ms"])
            self.store.add_coldstart_sample(coldstart_id, sample)
            self.cold = replace(self.cold, samples=(*self.cold.samples, sample))
            if self.on_sample is not None:
                self.on_sample(sample)
            yield sample
