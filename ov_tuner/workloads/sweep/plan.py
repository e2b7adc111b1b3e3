"""From a spec to the sweep's search spaces: per device, --set combination, precision and batch, the streams and
requests one search may measure."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import product

from ov_tuner.devices.decisions import auto_nireq, auto_precisions, auto_streams, virtual_hints
from ov_tuner.schema import DeviceInfo, InputMode, Mode, PointConfig, Precision, Settings, SweepSpec
from ov_tuner.workloads.sweep.policy import Cell, Space


@dataclass(frozen=True)
class PlannedSpace:
    """One search space of a sweep: a device, precision, batch, input mode and --set properties over streams x
    requests; on a virtual device, one performance hint (`mode`) over requests, with streams 0.

    `auto`: streams and requests were asked as 'auto', so the THROUGHPUT hint's own streams and request
    count join the space once they are known (see `with_hint`). `auto_precision`: the precision came from
    `--precision auto`, so it is measured once as fp32 where a compile shows it runs fp32's math.
    `hosts_default`: the first space of its device, batch and input mode, which measures the "OpenVINO
    default" baseline for all of them.
    """

    device: DeviceInfo
    precision: Precision
    batch: int
    input_mode: InputMode
    space: Space
    auto: bool = True
    mode: Mode = Mode.EXPLICIT
    settings: Settings = ()
    auto_precision: bool = False
    hosts_default: bool = False

    def config(self, cell: Cell) -> PointConfig:
        return PointConfig(device=self.device.name, precision=self.precision, batch=self.batch, streams=cell.streams,
                           nireq=cell.nireq, mode=self.mode, input_mode=self.input_mode, settings=self.settings)

    def baseline(self, mode: Mode) -> PointConfig:
        """A hint baseline of this space: streams and requests 0, OpenVINO chooses them."""
        return PointConfig(device=self.device.name, precision=self.precision, batch=self.batch, streams=0, nireq=0,
                           mode=mode, input_mode=self.input_mode, settings=self.settings)

    def default_baseline(self) -> PointConfig:
        """OpenVINO left alone on this space's device and batch: the IR as given, no precision hint, no --set
        property."""
        return PointConfig(device=self.device.name, precision=Precision.FP32, batch=self.batch, streams=0, nireq=0,
                           mode=Mode.DEFAULT, input_mode=self.input_mode)

    def owns(self, config: PointConfig) -> bool:
        """Whether `config` is a point of this space or one of its precision's hint baselines (the "OpenVINO
        default" baseline belongs to no precision: see `default_baseline`)."""
        mine = (self.device.name, self.precision, self.batch, self.input_mode, self.settings)
        if (config.device, config.precision, config.batch, config.input_mode, config.settings) != mine:
            return False
        if config.mode is Mode.DEFAULT:
            return False
        return config.mode is self.mode or (self.mode is Mode.EXPLICIT and not config.explicit)

    def with_hint(self, hint: Cell | None) -> Space:
        """The space with the THROUGHPUT hint's choice known; its values join an 'auto' space."""
        space = replace(self.space, hint=hint)
        if hint is None or not self.auto:
            return space
        return replace(space, streams=tuple(sorted({*space.streams, hint.streams})),
                       nireqs=tuple(sorted({*space.nireqs, hint.nireq})))


def plan(spec: SweepSpec, devices: list[DeviceInfo]) -> list[PlannedSpace]:
    """The sweep's spaces in order: device, --set combination, precision, batch (and hint, on a virtual device).
    Precisions 'auto' are those the device runs as math of their own, fp32 first (and int8 where asked); streams
    'auto' run 1, 2, 4, ... to the device's maximum; requests 'auto' double up to the device's request bound
    (ov_tuner.devices.decisions)."""
    spaces = []
    for device in devices:
        virtual = bool(device.members)
        streams = (0,) if virtual else spec.streams or auto_streams(device)
        nireqs = spec.nireq or auto_nireq(streams, device)
        top = device.streams_range[1] if device.streams_range else None
        auto = spec.streams is None and spec.nireq is None
        modes = virtual_hints(device.name) if virtual else (Mode.EXPLICIT,)
        precisions = spec.precisions or (*auto_precisions(device)[0], *((Precision.INT8,) if spec.int8 else ()))
        hosted: set[tuple[int, InputMode]] = set()
        for settings in settings_combinations(spec.settings):
            threads = dict(settings).get(THREADS, "")
            fitted = ((tuple(s for s in streams if s <= int(threads)) or (1,))
                      if threads.isdigit() and spec.streams is None else streams)  # no stream without a thread
            for precision in precisions:
                merges = spec.precisions is None and precision is not Precision.INT8  # int8 is never fp32's math
                for batch in spec.batches:
                    for mode in modes:
                        first = not virtual and (batch, spec.input_mode) not in hosted
                        hosted.add((batch, spec.input_mode))
                        spaces.append(PlannedSpace(device=device, precision=precision, batch=batch,
                                                   input_mode=spec.input_mode, space=Space(fitted, nireqs, top),
                                                   auto=auto, mode=mode, settings=settings, auto_precision=merges,
                                                   hosts_default=first))
    return spaces


# The order the search visits a device's precisions: the one expected fastest first (int8 runs integer kernels;
# fp16 and bf16 move half fp32's bytes), so that the slower precisions' points are judged against its best from their
# first window and end as soon as they are clearly behind it (ov_tuner.workloads.sweep.policy). An expectation only
# orders the work: every precision is still measured, and where one is not faster its points simply run longer.
EXPECTED_FASTEST = (Precision.INT8, Precision.FP16, Precision.BF16, Precision.FP32)


def search_order(spaces: list[PlannedSpace]) -> list[PlannedSpace]:
    """The spaces in the order the search visits them: device by device as planned, within a device the precision
    expected fastest first (stable otherwise)."""
    devices = list(dict.fromkeys(s.device.name for s in spaces))
    return sorted(spaces, key=lambda s: (devices.index(s.device.name), EXPECTED_FASTEST.index(s.precision)))


THREADS = "INFERENCE_NUM_THREADS"


def box_threads(cpus: float) -> tuple[str, ...]:
    """The INFERENCE_NUM_THREADS values a sweep tries inside a box of `cpus` CPUs' worth of time (a cgroup quota or
    a cpuset narrower than the host): the whole CPUs it holds and, for a fraction, one more. OpenVINO sizes its
    threads to the host, and more threads than the quota pays for are throttled in every period."""
    whole = max(1, int(cpus))
    return tuple(str(t) for t in sorted({whole, max(whole, math.ceil(cpus))}))


def fit_to_box(spec: SweepSpec, devices: list[DeviceInfo], cpus: float | None) -> SweepSpec:
    """The sweep inside a box of `cpus` CPUs (None: the whole host): on CPU alone, with 'auto' streams or a quota
    the sweep set up itself (--cpus), and unless --set names the threads, INFERENCE_NUM_THREADS within the box
    becomes an axis and 'auto' streams stop at the threads. OpenVINO default keeps its own choice, so the answer
    shows what that costs in the box. Streams the user listed are swept as listed."""
    if (cpus is None or THREADS in spec.settings or any(d.name != "CPU" for d in devices)
            or (spec.streams is not None and spec.cpus is None)):
        return spec
    return replace(spec, settings={**spec.settings, THREADS: box_threads(cpus)})


def settings_combinations(axes: dict[str, tuple[str, ...]]) -> list[Settings]:
    """Every combination of the --set values, each as sorted (KEY, VALUE) pairs; [()] when nothing is set."""
    keys = sorted(axes)
    return [tuple(zip(keys, values, strict=True)) for values in product(*(axes[k] for k in keys))]
