"""The sweep: for each space (device, precision, batch), drive the search policy against the runtime, store every
point as it completes, then confirm the contenders head to head.

Everything that can be checked before measuring (model, devices, shapes, output path) is checked first, so
bad input costs nothing. Per space: the hint baselines first (their read-back THROUGHPUT choice anchors the
search), then whatever the policy proposes, until it says it is done. Each point is committed before the next
starts; a point that fails is stored as failed and the sweep goes on; a stop request ends it between points.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Protocol

import openvino as ov

from ov_tuner.devices.environment import environment
from ov_tuner.devices.runtime import PointFailure, Runtime, open_model_source, set_layouts
from ov_tuner.errors import OvTunerError
from ov_tuner.measure import host
from ov_tuner.measure.confirm import run_confirmation
from ov_tuner.measure.engine import measure
from ov_tuner.model.inputs import InputData, add_image_preprocessing, load_images
from ov_tuner.schema import (
    FOREIGN_CPU_LIMIT,
    CompileInfo,
    CompileKey,
    ConfirmRule,
    Ending,
    Mode,
    PointConfig,
    PointResult,
    Precision,
    Search,
    Status,
    SweepSpec,
    Verdict,
)
from ov_tuner.search.confirm import plan_confirmation
from ov_tuner.search.grid import PlannedSpace, plan
from ov_tuner.search.policy import Cell, Evidence, GridSearch, SearchPolicy, SmartSearch
from ov_tuner.store.destinations import results_file
from ov_tuner.store.results import ResultStore

HINT_MODES = (Mode.LATENCY, Mode.THROUGHPUT)
# Compiled models kept alive at once within a space: a climb often steps back to the streams it just left.
COMPILED_KEPT = 2


class SweepProgress(Protocol):
    """What a front end is told as the sweep goes; the library itself never prints."""

    def planned(self, to_measure: int, already_measured: int) -> None: ...

    def note(self, text: str) -> None: ...

    def starting(self, config: PointConfig) -> None: ...

    def finished(self, point: PointResult) -> None: ...

    def dropped(self, count: int) -> None: ...


class _Silent:
    def planned(self, to_measure: int, already_measured: int) -> None:
        pass

    def note(self, text: str) -> None:
        pass

    def starting(self, config: PointConfig) -> None:
        pass

    def finished(self, point: PointResult) -> None:
        pass

    def dropped(self, count: int) -> None:
        pass


@dataclass(frozen=True)
class SweepSummary:
    """What a sweep did: points measured (some stopped early by smart search), failed, already stored
    (skipped), and left out by smart search; how long the search and the confirmation round took, and how
    many points a full grid of the same spaces holds."""

    out: Path
    measured: int
    failed: int
    skipped: int
    compiles: int
    interrupted: bool
    dropped: int = 0
    outpaced: int = 0
    decided: int = 0
    search_s: float = 0.0
    confirm_s: float = 0.0
    grid_points: int = 0
    confirmed: int = 0
    abandoned: int = 0

    @property
    def fixed_grid_s(self) -> float | None:
        """What a fixed-time grid of every point would take at this sweep's mean time per measured point."""
        if not self.measured:
            return None
        return self.grid_points * self.search_s / self.measured


def run_sweep(
    spec: SweepSpec,
    progress: SweepProgress | None = None,
    stop: threading.Event | None = None,
    runtime: Runtime | None = None,
) -> SweepSummary:
    """Measure what the search asks for in every space of `spec` not yet in `spec.out`; return what was done."""
    runtime = runtime or Runtime()
    progress = progress or _Silent()
    stop = stop or threading.Event()
    quiet_start = host.sample()  # what other processes do while the model is prepared: is the host busy?
    results_file(spec.out)
    source = open_model_source(spec.model)
    devices = runtime.resolve_devices(spec.devices)
    images = load_images(spec.images) if spec.images else None
    models = {p: _prepared(runtime.read_model(source, p), spec, images is not None) for p in spec.precisions}
    for batch in spec.batches:  # a shape problem surfaces now, before anything is measured
        runtime.reshape(models[spec.precisions[0]], batch, spec.shapes)

    with ResultStore(spec.out) as store:
        store.claim(environment(source))
        for device in devices:
            store.record_device(device)
        busy = host.foreign_load_since(quiet_start)
        if busy is not None and busy > FOREIGN_CPU_LIMIT:
            progress.note(f"the host is already busy: other processes used {busy:.0%} of the CPUs while the model was "
                          "prepared; windows measured while that lasts are flagged and set aside")
        run = _SweepRun(runtime, store, spec, progress, stop, InputData(images),
                        {p: runtime.ir_path(source, p) for p in spec.precisions})
        spaces = plan(spec, devices)
        run.plan(spaces)
        started = time.perf_counter()
        for planned in spaces:
            if stop.is_set():
                break
            run.search(models[planned.precision], planned)
        search_s = time.perf_counter() - started
        confirmed = 0
        if spec.confirm is not None and not stop.is_set():
            for device in devices:
                confirmed += run.confirm(models, [s for s in spaces if s.device is device], spec.confirm)
        return SweepSummary(spec.out, run.measured, run.failed, run.skipped, run.compiles, stop.is_set(),
                            run.dropped, run.endings[Ending.OUTPACED], run.endings[Ending.DECIDED], search_s,
                            time.perf_counter() - started - search_s, run.grid_points, confirmed, run.abandoned)


def _prepared(model: ov.Model, spec: SweepSpec, with_images: bool) -> ov.Model:
    """The model with the user's layouts, and image preprocessing when real images go in."""
    set_layouts(model, spec.layouts)
    return add_image_preprocessing(model) if with_images else model


def _failure_text(error: Exception) -> str:
    """A failed point's stored error: its one line, then OpenVINO's whole message where it says more."""
    if isinstance(error, PointFailure) and error.detail not in str(error):
        return f"{error}\n{error.detail}"
    return str(error)


def policy_for(spec: SweepSpec) -> SearchPolicy:
    return SmartSearch(confirming=spec.confirm is not None) if spec.search is Search.SMART else GridSearch()


@dataclass
class _SweepRun:
    """The state of one sweep while it runs: where points go, what is stored, what was done."""

    runtime: Runtime
    store: ResultStore
    spec: SweepSpec
    progress: SweepProgress
    stop: threading.Event
    data: InputData
    ir_paths: dict[Precision, Path]
    stored: dict[PointConfig, PointResult] = field(default_factory=dict)
    measured: int = 0
    failed: int = 0
    skipped: int = 0
    compiles: int = 0
    dropped: int = 0
    grid_points: int = 0
    abandoned: int = 0
    endings: dict[Ending, int] = field(default_factory=lambda: dict.fromkeys(Ending, 0))
    tried: set[PointConfig] = field(default_factory=set)
    compiled_ok: set[tuple[str, Precision]] = field(default_factory=set)
    dead: dict[tuple[str, Precision], str] = field(default_factory=dict)

    def plan(self, spaces: list[PlannedSpace]) -> None:
        """Tell the front end the most there is to measure: every cell the policy may ask for, and baselines."""
        self.stored = {p.config: p for p in self.store.points() if p.ok}
        self.compiled_ok = {(c.device, c.precision) for c in self.stored}
        smart = self.spec.search is Search.SMART
        upper = 0
        for s in spaces:
            cells = s.space.busy_cells() if smart else s.space.cells()
            configs = [s.config(c) for c in cells] + [s.baseline(m) for m in HINT_MODES if self.spec.baselines]
            self.grid_points += len(s.space.cells()) + (len(HINT_MODES) if self.spec.baselines else 0)
            self.skipped += sum(c in self.stored for c in configs)
            upper += sum(c not in self.stored for c in configs)
        self.progress.planned(upper, self.skipped)

    def search(self, model: ov.Model, planned: PlannedSpace) -> None:
        """The hint baselines, then what the policy proposes, until it is done, a stop is asked for, or the
        space's precision turned out not to compile on its device."""
        policy = policy_for(self.spec)
        self.runtime.reshape(model, planned.batch, self.spec.shapes)
        hint = self._baselines(model, planned, policy)
        space = planned.with_hint(hint)
        points = {c: p.measurement.windows for c in space.cells()
                  if (p := self.stored.get(planned.config(c))) is not None and p.measurement is not None}
        baselines = self._baseline_evidence(planned)
        failed: set[Cell] = set()
        compiled: _CompiledCache = _CompiledCache(self, model, planned)
        try:
            while not self.stop.is_set() and not self._abandoned(planned):
                evidence = Evidence(dict(points), frozenset(failed), baselines)
                cell = policy.next_cell(space, evidence)
                if cell is None:
                    break
                point = self._measure(compiled, planned.config(cell), partial(policy.verdict, space, evidence))
                if point.measurement is not None:
                    points[cell] = point.measurement.windows
                else:
                    failed.add(cell)
        finally:
            compiled.clear()
        if not self.stop.is_set():
            cells = space.busy_cells() if self.spec.search is Search.SMART else space.cells()
            configs = [planned.config(c) for c in cells if c not in points and c not in failed]
            configs += [planned.baseline(m) for m in HINT_MODES if self.spec.baselines]
            left = sum(c not in self.stored and c not in self.tried for c in configs)
            if self._abandoned(planned):
                self.abandoned += left
            else:
                self.dropped += left
            self.progress.dropped(left)

    def _abandoned(self, planned: PlannedSpace) -> bool:
        return (planned.device.name, planned.precision) in self.dead

    def _baselines(self, model: ov.Model, planned: PlannedSpace, policy: SearchPolicy) -> Cell | None:
        """Measure the LATENCY and THROUGHPUT hint baselines (unless stored or turned off) and return the streams x
        requests OpenVINO chose under THROUGHPUT: the search's first anchor."""
        hint = None
        for mode in HINT_MODES:
            config = planned.baseline(mode)
            stored = self.stored.get(config)
            if stored is not None:
                info = stored.compile
            elif self._abandoned(planned):
                info = None
            elif self.spec.baselines and not self.stop.is_set():
                info = self._compile_and_measure(model, planned, config, policy.baseline_verdict).compile
            elif mode is Mode.THROUGHPUT and self.spec.search is Search.SMART:
                info = self._probe_hint(model, planned, config)
            else:
                info = None
            if mode is Mode.THROUGHPUT and info is not None:
                hint = Cell(info.num_streams, info.optimal_nireq)
        return hint

    def _probe_hint(self, model: ov.Model, planned: PlannedSpace, config: PointConfig) -> CompileInfo | None:
        """Compile under the THROUGHPUT hint only to read back its streams and requests (--no-baselines)."""
        try:
            compiled, info = self.runtime.compile(model, config.compile_key, planned.device,
                                                  self.ir_paths[config.precision])
        except (PointFailure, OvTunerError):
            return None
        del compiled
        return info

    def _baseline_evidence(self, planned: PlannedSpace) -> tuple[tuple[Cell, tuple], ...]:
        found = []
        for mode in HINT_MODES:
            p = self.stored.get(planned.baseline(mode))
            if p is not None and p.measurement is not None:
                found.append((Cell(p.streams, p.nireq), p.measurement.windows))
        return tuple(found)

    def _compile_and_measure(self, model: ov.Model, planned: PlannedSpace, config: PointConfig,
                             verdict: Verdict) -> PointResult:
        """A configuration on a compiled model of its own (a hint baseline): compile, warm up, measure, store."""
        self.progress.starting(config)
        try:
            compiled, info = self.runtime.compile(model, config.compile_key, planned.device,
                                                  self.ir_paths[config.precision])
        except (PointFailure, OvTunerError) as e:
            return self._failed(config, e)
        self.compiled(config.compile_key)
        compile_id = self.store.add_compile(info)
        try:
            point = self._run(compiled, info, config, self.spec.warmup_s, verdict)
        finally:
            del compiled
        return self._finish(point, compile_id)

    def _measure(self, compiled: _CompiledCache, config: PointConfig, verdict: Verdict) -> PointResult:
        """A grid point on the compiled model of its streams (compiled, or reused warm)."""
        self.progress.starting(config)
        try:
            entry, fresh = compiled.get(config.compile_key)
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
            m = measure(compiled, nireq, config.batch, self.spec.stop, warmup_s, config.input_mode, self.data,
                        verdict=verdict)
        except (RuntimeError, MemoryError) as e:
            return PointResult(config, Status.FAILED, info, error=_failure_text(PointFailure("inference", e)))
        return PointResult(config, Status.OK, info, m)

    def compiled(self, key: CompileKey) -> None:
        """A compile succeeded: its precision does compile on its device."""
        self.compiles += 1
        self.compiled_ok.add((key.device, key.precision))

    def _failed(self, config: PointConfig, error: Exception) -> PointResult:
        """Store a point whose compile failed. When it was the first compile of its precision on its device, say
        once that the rest of that precision on that device is skipped: a precision the device has no kernels
        for fails the same way at every point, and repeating OpenVINO's message helps no one."""
        point = self._finish(PointResult(config, Status.FAILED, error=_failure_text(error)), None)
        key = (config.device, config.precision)
        first = key not in self.compiled_ok and key not in self.dead
        if isinstance(error, PointFailure) and error.phase == "compile" and first:
            self.dead[key] = str(error)
            self.progress.note(f"{config.device} {config.precision.value}: its first compile failed ({error}); the "
                               f"rest of {config.precision.value} on {config.device} is skipped: sweep without it "
                               "(--precision) or fix the cause; --verbose shows OpenVINO's whole message")
        return point

    def _finish(self, point: PointResult, compile_id: int | None) -> PointResult:
        self.store.add_point(point, compile_id)
        self.tried.add(point.config)
        if point.ok:
            assert point.measurement is not None
            self.measured += 1
            self.endings[point.measurement.ended] += 1
            self.stored[point.config] = point
        else:
            self.failed += 1
        self.progress.finished(point)
        return point

    def confirm(self, models: dict[Precision, ov.Model], spaces: list[PlannedSpace], rule: ConfirmRule) -> int:
        """The confirmation round of one device's contenders; returns the configurations it measured."""
        contenders = plan_confirmation(list(self.stored.values()), spaces)
        if len(contenders) < 2 or self.store.has_confirmation(contenders):
            return 0
        self.progress.note(f"confirming {len(contenders)} configurations head to head")
        device = spaces[0].device

        def compile_config(config: PointConfig) -> tuple[ov.CompiledModel, CompileInfo]:
            model = models[config.precision]
            self.runtime.reshape(model, config.batch, self.spec.shapes)
            return self.runtime.compile(model, config.compile_key, device, self.ir_paths[config.precision])

        search_s = sum(p.measurement.wall_s for p in self.stored.values()
                       if p.measurement is not None and p.config.device == device.name)
        return run_confirmation(compile_config, contenders, self.store, device.name, rule, rule.budget_s(search_s),
                                self.data, self.stop, self.spec.warmup_s)


@dataclass
class _Compiled:
    compiled: ov.CompiledModel
    info: CompileInfo
    compile_id: int


class _CompiledCache:
    """The compiled models of one space, the most recent COMPILED_KEPT kept alive; a failed compile is
    remembered so that its other request counts fail at once."""

    def __init__(self, run: _SweepRun, model: ov.Model, planned: PlannedSpace) -> None:
        self._run, self._model, self._planned = run, model, planned
        self._alive: OrderedDict[CompileKey, _Compiled] = OrderedDict()
        self._failed: dict[CompileKey, Exception] = {}

    def get(self, key: CompileKey) -> tuple[_Compiled, bool]:
        """The compiled model for `key` and whether it was compiled just now (and so needs its warm-up)."""
        if key in self._failed:
            raise self._failed[key]
        if key in self._alive:
            self._alive.move_to_end(key)
            return self._alive[key], False
        while len(self._alive) >= COMPILED_KEPT:
            self._alive.popitem(last=False)
        run = self._run
        try:
            compiled, info = run.runtime.compile(self._model, key, self._planned.device, run.ir_paths[key.precision])
        except (PointFailure, OvTunerError) as e:
            self._failed[key] = e
            raise
        run.compiled(key)
        self._alive[key] = _Compiled(compiled, info, run.store.add_compile(info))
        return self._alive[key], True

    def clear(self) -> None:
        self._alive.clear()

