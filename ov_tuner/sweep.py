"""The sweep: grid -> compile once per (device, precision, batch, streams) -> measure each nireq -> store.

Everything that can be checked before measuring (model, devices, shapes, output path) is checked
first, so bad input costs nothing. Then each point is committed before the next starts; a point
that fails is stored as failed and the sweep goes on; a stop request ends it between points.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import openvino as ov

from ov_tuner.devices.environment import environment
from ov_tuner.devices.runtime import PointFailure, Runtime, open_model_source, set_layouts
from ov_tuner.errors import OvTunerError
from ov_tuner.measure.engine import GiveUp, measure
from ov_tuner.model.inputs import InputData, add_image_preprocessing, load_images
from ov_tuner.schema import (
    CompileGroup,
    DeviceInfo,
    Ending,
    Mode,
    PointConfig,
    PointResult,
    Precision,
    Search,
    Status,
    SweepSpec,
)
from ov_tuner.search.grid import expand
from ov_tuner.search.policy import outpaced, worth_more_requests, worth_more_streams
from ov_tuner.store.results import ResultStore, check_out_path


class SweepProgress(Protocol):
    """What a front end is told as the sweep goes; the library itself never prints."""

    def planned(self, to_measure: int, already_measured: int) -> None: ...

    def starting(self, config: PointConfig) -> None: ...

    def finished(self, point: PointResult) -> None: ...

    def dropped(self, count: int) -> None: ...


class _Silent:
    def planned(self, to_measure: int, already_measured: int) -> None:
        pass

    def starting(self, config: PointConfig) -> None:
        pass

    def finished(self, point: PointResult) -> None:
        pass

    def dropped(self, count: int) -> None:
        pass


@dataclass(frozen=True)
class SweepSummary:
    """What a sweep did: points measured (some stopped early by smart search as outpaced), failed, already
    stored (skipped), and left out by smart search."""

    out: Path
    measured: int
    failed: int
    skipped: int
    compiles: int
    interrupted: bool
    dropped: int = 0
    outpaced: int = 0


def run_sweep(
    spec: SweepSpec,
    progress: SweepProgress | None = None,
    stop: threading.Event | None = None,
    runtime: Runtime | None = None,
) -> SweepSummary:
    """Measure every point of `spec` not yet in `spec.out`; return what was done."""
    runtime = runtime or Runtime()
    check_out_path(spec.out)
    source = open_model_source(spec.model)
    devices = {d.name: d for d in runtime.resolve_devices(spec.devices)}
    images = load_images(spec.images) if spec.images else None
    models = {p: _prepared(runtime.read_model(source, p), spec, images is not None) for p in spec.precisions}
    for batch in spec.batches:  # a shape problem surfaces now, before anything is measured
        runtime.reshape(models[spec.precisions[0]], batch, spec.shapes)

    with ResultStore(spec.out) as store:
        store.claim(environment(source))
        for device in devices.values():
            store.record_device(device)
        ir_paths = {p: runtime.ir_path(source, p) for p in spec.precisions}
        measured_fps = store.measured_fps()
        run = _SweepRun(runtime, store, spec, ir_paths, progress or _Silent(), stop or threading.Event(), measured_fps,
                        InputData(images))
        groups = expand(spec, list(devices.values()))
        todo = [(g, [p for p in g.points() if p not in measured_fps]) for g in groups]
        todo = [(g, pending) for g, pending in todo if pending]
        total = sum(len(g.points()) for g in groups)
        to_measure = sum(len(pending) for _, pending in todo)
        run.progress.planned(to_measure, total - to_measure)
        for group, pending in todo:
            if run.stop.is_set():
                break
            if run.more_streams_cannot_win(group):
                run.drop(pending)
                continue
            run.group(models[group.key.precision], group, pending, devices[group.key.device])
        interrupted = run.measured + run.failed + run.dropped < to_measure
        return SweepSummary(spec.out, run.measured, run.failed, total - to_measure, run.compiles, interrupted,
                            run.dropped, run.outpaced)


def _prepared(model: ov.Model, spec: SweepSpec, with_images: bool) -> ov.Model:
    """The model with the user's layouts, and image preprocessing when real images go in."""
    set_layouts(model, spec.layouts)
    return add_image_preprocessing(model) if with_images else model


@dataclass
class _SweepRun:
    """The state of one sweep while it runs: where points go, what has been measured, what was done."""

    runtime: Runtime
    store: ResultStore
    spec: SweepSpec
    ir_paths: dict[Precision, Path]
    progress: SweepProgress
    stop: threading.Event
    fps: dict[PointConfig, float]
    data: InputData
    measured: int = 0
    failed: int = 0
    compiles: int = 0
    dropped: int = 0
    outpaced: int = 0

    def searching(self, group: CompileGroup) -> bool:
        """Whether smart search decides about `group`: grid groups under --search smart (never a hint baseline)."""
        return self.spec.search is Search.SMART and group.key.mode is Mode.GRID

    def more_streams_cannot_win(self, group: CompileGroup) -> bool:
        """Smart search: the stream counts below this one stopped paying, so this one is skipped."""
        if not self.searching(group):
            return False
        best: dict[int, float] = {}
        for config, fps in self.rivals(group):
            if config.batch == group.key.batch and config.streams < group.key.streams:
                best[config.streams] = max(fps, best.get(config.streams, 0.0))
        return not worth_more_streams([best[s] for s in sorted(best)])

    def race_against_best(self, group: CompileGroup) -> GiveUp | None:
        """Smart search: what ends a point of `group` early, once the best point so far of the same device,
        precision and input mode is out of its reach (None: grid search, a hint baseline, or nothing yet)."""
        if not self.searching(group):
            return None
        rivals = self.rivals(group)
        if not rivals:
            return None
        best, tolerance = max(fps for _, fps in rivals), self.spec.stop.tolerance
        return lambda windows: outpaced(windows, best, tolerance)

    def rivals(self, group: CompileGroup) -> list[tuple[PointConfig, float]]:
        """Measured grid points that compete with `group`'s: same device, precision and input mode."""
        wanted = (Mode.GRID, group.key.device, group.key.precision, group.input_mode)
        return [(c, fps) for c, fps in self.fps.items() if (c.mode, c.device, c.precision, c.input_mode) == wanted]

    def more_requests_cannot_win(self, group: CompileGroup) -> bool:
        """Smart search: the last request count on this compiled model added too little."""
        if not self.searching(group):
            return False
        return not worth_more_requests([self.fps[c] for c in group.points() if c in self.fps])

    def drop(self, configs: list[PointConfig]) -> None:
        self.dropped += len(configs)
        self.progress.dropped(len(configs))

    def group(self, model: ov.Model, group: CompileGroup, pending: list[PointConfig], device: DeviceInfo) -> None:
        """Compile once and measure each pending request count on that compiled model."""
        if self.more_requests_cannot_win(group):  # resumed: the stored points already decided
            self.drop(pending)
            return
        self.progress.starting(pending[0])
        try:
            self.runtime.reshape(model, group.key.batch, self.spec.shapes)
            compiled, info = self.runtime.compile(model, group.key, device, self.ir_paths[group.key.precision])
        except (PointFailure, OvTunerError) as e:
            for config in pending:
                self._finish(PointResult(config, Status.FAILED, error=str(e)), None)
            return
        self.compiles += 1
        compile_id = self.store.add_compile(info)
        try:
            for i, config in enumerate(pending):
                if self.stop.is_set():
                    break
                if i:
                    if self.more_requests_cannot_win(group):
                        self.drop(pending[i:])
                        break
                    self.progress.starting(config)
                # The compiled model warms up once. A new request's first inference on a warm compiled model
                # costs what a steady one does (MobileNet-v2 6.7 vs 6.5 ms, ResNet-50 62.6 vs 63.1 ms here).
                warmup_s = self.spec.warmup_s if i == 0 else 0.0
                nireq = config.nireq or info.optimal_nireq  # 0: a hint baseline runs what the device calls optimal
                try:
                    m = measure(compiled, nireq, config.batch, self.spec.stop, warmup_s, config.input_mode, self.data,
                                cannot_win=self.race_against_best(group))
                    point = PointResult(config, Status.OK, info, m)
                except (RuntimeError, MemoryError) as e:
                    point = PointResult(config, Status.FAILED, info, error=str(PointFailure("inference", e)))
                self._finish(point, compile_id)
        finally:
            del compiled

    def _finish(self, point: PointResult, compile_id: int | None) -> None:
        self.store.add_point(point, compile_id)
        if point.ok:
            assert point.measurement is not None
            self.measured += 1
            self.outpaced += point.measurement.ended is Ending.OUTPACED
            self.fps[point.config] = point.fps
        else:
            self.failed += 1
        self.progress.finished(point)
