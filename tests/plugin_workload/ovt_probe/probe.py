"""The probe's job and records: one synchronous request's latency on CPU at each number of inference threads asked
for, its first inference stored apart, a warm-up left out, each latency stored as it is measured; and its answer,
the number of threads with the lowest median latency."""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ov_tuner.plugin import BadInputError, OwnTables, ResultStore, results_file
from ovt_probe import WRITER

# The probe's own table in its results files (version 1: no older one to upgrade).
TABLES = OwnTables("probe", 1, """
CREATE TABLE IF NOT EXISTS probe_latencies (
    id INTEGER PRIMARY KEY, threads INTEGER NOT NULL, first INTEGER NOT NULL, ms REAL NOT NULL
);
""")
# Inferences run after the first and before the timed ones: caches and allocations settle.
WARM_UP = 2


class ProbeStore(ResultStore):
    """A results file with the probe's table beside every file's."""

    OWN_TABLES = (TABLES,)


@dataclass(frozen=True)
class Threads:
    """One number of threads: its first inference, and the timed ones."""

    threads: int
    first_ms: float
    latencies_ms: tuple[float, ...]

    @property
    def median_ms(self) -> float:
        return statistics.median(self.latencies_ms)

    @property
    def p90_ms(self) -> float:
        return statistics.quantiles(self.latencies_ms, n=10)[-1]


@dataclass(frozen=True)
class ProbeAnswer:
    """What a probe's file says: the model, each number of threads measured, and the one with the lowest median."""

    path: str
    model: str
    measured: tuple[Threads, ...]

    @property
    def best(self) -> Threads:
        return min(self.measured, key=lambda t: t.median_ms)


def run_probe(model: Path, out: Path, threads: Sequence[int], requests: int) -> None:
    """Measure `requests` latencies at each of `threads` into the results file `out`."""
    import numpy as np
    import openvino as ov

    from ov_tuner.plugin import environment, open_model_source

    results_file(out, inputs=(model,))
    source = open_model_source(model)
    core = ov.Core()
    with ProbeStore(out) as store:
        store.claim(environment(source), WRITER)
        for count in threads:
            request = core.compile_model(str(model), "CPU", {"INFERENCE_NUM_THREADS": count}).create_infer_request()
            inputs = {port.any_name: np.zeros([d.get_length() if d.is_static else 1 for d in port.get_partial_shape()],
                                              port.get_element_type().to_dtype())
                      for port in request.model_inputs}
            for number in range(1 + WARM_UP + requests):
                started = time.perf_counter()
                request.infer(inputs)
                ms = (time.perf_counter() - started) * 1000
                if number == 0 or number > WARM_UP:
                    store.write("INSERT INTO probe_latencies (threads, first, ms) VALUES (?, ?, ?)",
                                (count, int(number == 0), ms))


def probe_answer(results: Path) -> ProbeAnswer:
    """The probe's answer from its results file; one line where it holds no latency yet."""
    with ProbeStore(results, create=False) as store:
        rows = store.rows("SELECT threads, first, ms FROM probe_latencies ORDER BY id")
        env = store.environment()
    if not rows or env is None:
        raise BadInputError(f"{results} holds no probe yet; run `ov-tuner probe MODEL --out {results}` first")
    counts = list(dict.fromkeys(int(r["threads"]) for r in rows))
    measured = tuple(Threads(c, next(r["ms"] for r in rows if r["threads"] == c and r["first"]),
                             tuple(r["ms"] for r in rows if r["threads"] == c and not r["first"])) for c in counts)
    return ProbeAnswer(str(results), env.model_path, measured)
