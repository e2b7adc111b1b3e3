"""Neighbours: the deployed configuration run as K copies side by side (K processes, as K deployed models on one
box are), against one copy alone, in interleaved passes: alone, then together (the order alternates each pass, so
a drift of the host falls on both). Each copy compiles with the properties the answer deploys, its pinning
included, so copies that pin their threads to the same cores show what that costs.

Several OpenVINO processes on the same cores can run many times slower than one (openvinotoolkit/openvino issue
31186): this measures it for a configuration before it is deployed next to others.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ov_tuner.engine.driver import Rounds, Steps
from ov_tuner.engine.rounds import RoundLimits
from ov_tuner.errors import OvTunerError
from ov_tuner.schema import NeighbourPhase


@dataclass(frozen=True)
class NeighboursSpec:
    """`copies` copies of the answer of `results` on `model`, `passes` passes of a `seconds` window alone and one
    together; `threads`: INFERENCE_NUM_THREADS for each copy (None: what the answer deploys)."""

    model: Path
    results: Path
    copies: int = 2
    passes: int = 5
    seconds: float = 2.0
    threads: int | None = None


@dataclass
class NeighboursWorkload:
    """Neighbours on the one driver (ov_tuner.engine.driver): no search and no walk, two contenders in a round,
    one copy alone (position 0) and every copy together (1), visited in the rounds engine's alternating order for
    exactly `spec.passes` passes; a visit's figure is the first copy's FPS, and every copy's is kept as a phase."""

    spec: NeighboursSpec
    phases: list[NeighbourPhase] = field(default_factory=list)

    def search(self) -> Steps:
        yield from ()

    def walks(self) -> Steps:
        yield from ()

    @contextmanager
    def rounds(self) -> Iterator[Rounds | None]:
        spec = self.spec
        args = [sys.executable, "-m", "ov_tuner.workloads.sweep.neighbours.neighbour", str(spec.model),
                str(spec.results), str(spec.threads or 0)]
        copies = [subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True) for _ in range(spec.copies)]

        def visit(position: int, number: int) -> float:
            running = copies if position else copies[:1]
            for copy in running:
                assert copy.stdin is not None
                copy.stdin.write(f"visit {spec.seconds}\n")
                copy.stdin.flush()
            figures = [json.loads(_line(copy, "{")) for copy in running]
            self.phases.append(NeighbourPhase(number, bool(position), tuple(f["fps"] for f in figures),
                                              tuple(f["p90_ms"] for f in figures)))
            return float(figures[0]["fps"])

        try:
            for copy in copies:
                _expect_ready(copy)
            yield Rounds(visit, [True, True], RoundLimits(spec.passes, spec.passes))
        finally:
            for copy in copies:
                if copy.stdin is not None:
                    copy.stdin.close()
            for copy in copies:
                try:
                    copy.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    copy.kill()


def _line(copy: subprocess.Popen[str], start: str) -> str:
    """The copy's next line that begins with `start` (a library may print its own lines); a copy that died says
    why in one line."""
    assert copy.stdout is not None
    for line in copy.stdout:
        if line.startswith(start):
            return line
    copy.wait(timeout=30)
    assert copy.stderr is not None
    last = [ln for ln in copy.stderr.read().splitlines() if ln.strip()]
    why = last[-1].split("Error: ", 1)[-1] if last else f"exit {copy.returncode}"  # its message, not its class
    raise OvTunerError(f"a copy of the configuration stopped: {why}")


def _expect_ready(copy: subprocess.Popen[str]) -> None:
    _line(copy, "ready")
