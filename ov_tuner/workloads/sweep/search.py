"""The sweep's driver: per space, the baselines, then what the search policy proposes, each point compiled, measured
and stored before the next.

The policy decides (ov_tuner.engine); the driver only carries its proposals out against the runtime and remembers
what failed: a precision whose first compile on a device fails is skipped there.
"""

from __future__ import annotations

import threading
from collections.abc import Generator
from dataclasses import dataclass, field, replace
from functools import partial

import openvino as ov

from ov_tuner.devices.compiler import Compiler
from ov_tuner.devices.native import PointFailure, failure_text
from ov_tuner.engine.driver import Steps
from ov_tuner.errors import OvTunerError
from ov_tuner.measure.engine import measure
from ov_tuner.model.inputs import InputData
from ov_tuner.schema import (
    CompileInfo,
    Merged,
    MergeReason,
    Mode,
    PointConfig,
    PointResult,
    Precision,
    Search,
    Status,
    SweepSpec,
    Verdict,
)
from ov_tuner.stats.evidence import Estimate
from ov_tuner.store.results import ResultStore
from ov_tuner.workloads.sweep.compiled import CompiledCache
from ov_tuner.workloads.sweep.notices import PrecisionMerged, PrecisionSkipped
from ov_tuner.workloads.sweep.plan import PlannedSpace
from ov_tuner.workloads.sweep.policy import Cell, Evidence, GridSearch, SearchPolicy, SmartSearch, Space
from ov_tuner.workloads.sweep.progress import SweepProgress

# The baselines of a real device's space; THROUGHPUT_UNBATCHED joins them where THROUGHPUT was auto-batched.
HINT_MODES = (Mode.LATENCY, Mode.THROUGHPUT)


def policy_for(spec: SweepSpec) -> SearchPolicy:
    return SmartSearch(confirming=spec.confirm is not None) if spec.search is Search.SMART else GridSearch()


@dataclass
class Driver:
    """The state of one sweep while it runs: where points go, what is stored, what was done."""

    compiler: Compiler
    store: ResultStore
    spec: SweepSpec
    progress: SweepProgress
    stop: threading.Event
    data: InputData
    stored: dict[PointConfig, PointResult] = field(default_factory=dict)
    planned: set[PointConfig] = field(default_factory=set)  # every cell the policy may ask for, and the baselines
    grid_size: int = 0  # the points a grid search of the same spaces holds
    tried: set[PointConfig] = field(default_factory=set)
    compiled_ok: set[tuple[str, Precision]] = field(default_factory=set)
    dead: dict[tuple[str, Precision], str] = field(default_factory=dict)
    math: dict[tuple[str, Precision], str] = field(default_factory=dict)  # the arithmetic each precision ran
    merged: dict[tuple[str, Precision], Merged] = field(default_factory=dict)

    def plan(self, spaces: list[PlannedSpace]) -> None:
        """Tell the front end the most there is to measure: every cell the policy may ask for, and baselines."""
        self.stored = {p.config: p for p in self.store.points() if p.ok}
        self.compiled_ok = {(c.device, c.precision) for c in self.stored}
        self.math = {(p.config.device, p.config.precision): p.compile.executed_precision
                     for p in self.stored.values() if p.compile is not None and p.config.mode is not Mode.DEFAULT}
        smart = self.spec.search is Search.SMART
        for s in spaces:
            self.planned.update(s.config(c) for c in (s.space.busy_cells() if smart else s.space.cells()))
            self.planned.update(self._baseline_configs(s))
            self.grid_size += len(s.space.cells()) + len(self._baseline_configs(s))
        skipped = sum(c in self.stored for c in self.planned)
        self.progress.planned(len(self.planned) - skipped, skipped)

    def _baseline_configs(self, planned: PlannedSpace) -> list[PointConfig]:
        if not self.spec.baselines or planned.mode is not Mode.EXPLICIT:
            return []
        default = [planned.default_baseline()] if planned.hosts_default else []
        return default + [planned.baseline(m) for m in HINT_MODES]

    # -- one space -------------------------------------------------------------------------------------------

    def search(self, planned: PlannedSpace) -> Steps:
        """The hint baselines, then what the policy proposes, a step per point, until it is done, a stop is asked
        for, or the space's precision turned out not to compile on its device, or (under --precision auto) to run
        the same math as fp32 there."""
        policy = policy_for(self.spec)
        if planned.hosts_default and self.spec.baselines:
            yield from self._baseline(planned, planned.default_baseline(), policy)
        if self._merge(planned):
            self._left_out(planned, set())
            return
        space = planned.with_hint((yield from self._baselines(planned, policy)))
        points = {c: p.measurement.windows for c in space.cells()
                  if (p := self.stored.get(planned.config(c))) is not None and p.measurement is not None}
        baselines = self._baseline_evidence(planned)
        elsewhere = self._best_elsewhere(planned)
        failed: set[Cell] = set()
        compiled = CompiledCache(self.compiler, planned.device, self.store.add_compile, self.compiled)
        try:
            while not self.stop.is_set() and not self.abandoned(planned):
                evidence = Evidence(dict(points), frozenset(failed), baselines, elsewhere)
                cell = policy.next_cell(space, evidence)
                if cell is None:
                    break
                point = self._measure(compiled, planned.config(cell), partial(policy.verdict, space, evidence))
                if point.measurement is not None:
                    points[cell] = point.measurement.windows
                else:
                    failed.add(cell)
                yield point
        finally:
            compiled.clear()
        self._left_out(planned, {*points, *failed}, space)

    def _left_out(self, planned: PlannedSpace, done: set[Cell], space: Space | None = None) -> None:
        """Tell the front end what the space will not measure (left out by smart search, or after its precision was
        skipped or merged), so that its total stays honest."""
        if self.stop.is_set():
            return
        space = space or planned.space
        cells = space.busy_cells() if self.spec.search is Search.SMART else space.cells()
        configs = [planned.config(c) for c in cells if c not in done]
        left = sum(c not in self.stored and c not in self.tried for c in configs + self._baseline_configs(planned))
        self.progress.dropped(left)

    def abandoned(self, planned: PlannedSpace) -> bool:
        key = (planned.device.name, planned.precision)
        return key in self.dead or key in self.merged

    def _merge(self, planned: PlannedSpace) -> bool:
        """Under --precision auto, whether this space's precision runs the same arithmetic as fp32 on its device,
        judged from what a compile of each reads back: then it is measured once, as fp32, and said once."""
        key = (planned.device.name, planned.precision)
        if key in self.merged:
            return True
        if not planned.auto_precision or planned.precision is Precision.FP32 or key in self.math:
            return False
        ran = self._math(planned, planned.precision)
        if ran is None or ran != self._math(planned, Precision.FP32):
            return False
        self.merged[key] = Merged(planned.device.name, planned.precision, Precision.FP32, MergeReason.SAME_MATH, ran)
        self.store.record_merged(self.merged[key])
        self.progress.note(PrecisionMerged(self.merged[key]))
        return True

    def _math(self, planned: PlannedSpace, precision: Precision) -> str | None:
        """The arithmetic `precision` runs on the space's device: known from an earlier compile, else read back
        from a compile of the space's smallest configuration (None where it does not compile)."""
        key = (planned.device.name, precision)
        if key not in self.math:
            config = replace(planned.config(planned.space.busy_cells()[0]), precision=precision)
            try:
                compiled, info = self.compiler.compile(config.compile_key, planned.device)
            except (PointFailure, OvTunerError):
                return None
            del compiled
            self.math[key] = info.executed_precision
        return self.math[key]

    def _baselines(self, planned: PlannedSpace, policy: SearchPolicy) -> Generator[object, None, Cell | None]:
        """Measure the hint baselines (unless stored or turned off), a step each, and return OpenVINO's own choice
        under THROUGHPUT: the search's first anchor. Where THROUGHPUT was auto-batched, the same hint without
        auto-batching is measured beside it. A virtual device's space has no baselines: its hint is its
        axis, and its anchor is the request count that hint calls optimal."""
        if planned.mode is not Mode.EXPLICIT:
            info = self._hint_choice(planned, planned.baseline(planned.mode))
            return Cell(0, info.optimal_nireq) if info is not None else None
        hint = None
        modes = list(HINT_MODES)
        for mode in modes:
            config = planned.baseline(mode)
            info = yield from self._baseline(planned, config, policy)
            if mode is Mode.THROUGHPUT and info is not None:
                hint = Cell(info.num_streams, info.optimal_nireq)
                if info.auto_batched and self.spec.baselines:
                    modes.append(Mode.THROUGHPUT_UNBATCHED)
        return hint

    def _baseline(self, planned: PlannedSpace, config: PointConfig,
                  policy: SearchPolicy) -> Generator[object, None, CompileInfo | None]:
        """A baseline's point, measured as one step of the search (so a time budget and the clock count it as a
        trial), and what it compiled to."""
        stored = self.stored.get(config)
        if stored is not None:
            return stored.compile
        if (self.abandoned(planned) and config.mode is not Mode.DEFAULT) or self.stop.is_set():
            return None
        if self.spec.baselines:
            verdict = partial(policy.baseline_verdict, leader=self._best_elsewhere(planned))
            point = self._compile_and_measure(planned, config, verdict)
            yield point
            return point.compile
        if config.mode is Mode.THROUGHPUT and self.spec.search is Search.SMART:
            return self._hint_choice(planned, config)
        return None

    def _hint_choice(self, planned: PlannedSpace, config: PointConfig) -> CompileInfo | None:
        """Compile under a hint only to read back the streams and requests it chooses."""
        try:
            compiled, info = self.compiler.compile(config.compile_key, planned.device)
        except (PointFailure, OvTunerError):
            return None
        del compiled
        return info

    def _best_elsewhere(self, planned: PlannedSpace) -> Estimate | None:
        """The best point the device's other spaces at this batch and input mode measured (another precision, or
        other --set properties): a point of this space clearly worse than it cannot be the answer."""
        here = (planned.device.name, planned.batch, planned.input_mode)
        rivals = [p.measurement.windows for p in self.stored.values()
                  if p.config.explicit and not planned.owns(p.config) and p.measurement is not None
                  and p.measurement.windows and (p.config.device, p.config.batch, p.config.input_mode) == here]
        return max((Estimate.of(w) for w in rivals), key=lambda e: e.fps, default=None)

    def _baseline_evidence(self, planned: PlannedSpace) -> tuple[tuple[Cell, tuple], ...]:
        found = []
        own = [c for c in self._baseline_configs(planned) if c.mode is not Mode.DEFAULT]  # it ran its own precision
        for config in [*own, planned.baseline(Mode.THROUGHPUT_UNBATCHED)]:
            p = self.stored.get(config)
            if p is not None and p.measurement is not None:
                found.append((Cell(p.streams, p.nireq), p.measurement.windows))
        return tuple(found)

    # -- one point -------------------------------------------------------------------------------------------

    def _compile_and_measure(self, planned: PlannedSpace, config: PointConfig, verdict: Verdict) -> PointResult:
        """A configuration on a compiled model of its own (a hint baseline): compile, warm up, measure, store."""
        self.progress.starting(config)
        try:
            compiled, info = self.compiler.compile(config.compile_key, planned.device)
        except (PointFailure, OvTunerError) as e:
            return self._failed(config, e)
        self.compiled(info)
        compile_id = self.store.add_compile(info)
        try:
            point = self._run(compiled, info, config, self.spec.warmup_s, verdict)
        finally:
            del compiled
        return self._finish(point, compile_id)

    def _measure(self, compiled: CompiledCache, config: PointConfig, verdict: Verdict) -> PointResult:
        """A point of the search on the compiled model of its key (compiled, or reused warm)."""
        self.progress.starting(config)
        try:
            entry, fresh = compiled.get(config)
        except (PointFailure, OvTunerError) as e:
            return self._failed(config, e)
        # A compiled model warms up once. A new request's first inference on a warm compiled model costs what a
        # steady one does (MobileNet-v2 6.7 vs 6.5 ms, ResNet-50 62.6 vs 63.1 ms on this project's Xeon).
        point = self._run(entry.compiled, entry.info, config, self.spec.warmup_s if fresh else 0.0, verdict)
        return self._finish(point, entry.compile_id)

    def _run(self, compiled: ov.CompiledModel, info: CompileInfo, config: PointConfig, warmup_s: float,
             verdict: Verdict) -> PointResult:
        nireq = config.nireq or info.optimal_nireq  # 0: a hint baseline runs what the device calls optimal
        try:
            m = measure(compiled, nireq, config.batch, self.spec.stop, warmup_s=warmup_s, input_mode=config.input_mode,
                        data=self.data, verdict=verdict)
        except (RuntimeError, MemoryError) as e:
            return PointResult(config, Status.FAILED, info, error=failure_text(PointFailure("inference", e)))
        return PointResult(config, Status.OK, info, m)

    def compiled(self, info: CompileInfo) -> None:
        """A compile succeeded: its precision does compile on its device, and ran this arithmetic there."""
        key = info.key
        self.compiled_ok.add((key.device, key.precision))
        if key.mode is not Mode.DEFAULT:
            self.math.setdefault((key.device, key.precision), info.executed_precision)

    def _failed(self, config: PointConfig, error: Exception) -> PointResult:
        """Store a point whose compile failed. When it was the first compile of its precision on its device, say
        once that the rest of that precision on that device is skipped: a precision the device has no kernels
        for fails the same way at every point, and repeating OpenVINO's message helps no one."""
        point = self._finish(PointResult(config, Status.FAILED, error=failure_text(error)), None)
        key = (config.device, config.precision)
        first = key not in self.compiled_ok and key not in self.dead
        if isinstance(error, PointFailure) and error.phase == "compile" and first and config.mode is not Mode.DEFAULT:
            self.dead[key] = str(error)
            self.progress.note(PrecisionSkipped(config.device, config.precision, str(error)))
        return point

    def _finish(self, point: PointResult, compile_id: int | None) -> PointResult:
        self.store.add_point(point, compile_id)
        self.tried.add(point.config)
        if point.ok:
            self.stored[point.config] = point
        self.progress.finished(point)
        return point
