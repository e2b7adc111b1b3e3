"""From flags to the ordered list of compiled configurations and the request counts measured on each."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from itertools import product
from pathlib import Path

from ov_tuner.devices.decisions import auto_nireq, auto_precisions, auto_streams, virtual_hints
from ov_tuner.errors import BadInputError
from ov_tuner.schema import AUTO, DeviceInfo, InputMode, Mode, PointConfig, Precision, Settings, StopRule, SweepSpec
from ov_tuner.search.policy import Cell, Space


def parse_counts(text: str, flag: str, allow_auto: bool = True) -> tuple[int, ...] | None:
    """'1,2,4' -> (1, 2, 4); 'auto' -> None (resolved per device later)."""
    text = text.strip()
    if allow_auto and text.lower() == AUTO:
        return None
    values: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or int(part) == 0:
            example = "1,2,4" + (" or auto" if allow_auto else "")
            raise BadInputError(f"{flag}: '{part}' is not a whole number above 0; use e.g. {flag} {example}")
        values.append(int(part))
    return tuple(sorted(set(values)))


def parse_precisions(text: str, allow_auto: bool = True) -> tuple[Precision, ...] | None:
    """'fp32,fp16' -> (FP32, FP16); 'auto' -> None (the precisions each device runs differently, resolved per
    device)."""
    if allow_auto and text.strip().lower() == AUTO:
        return None
    choices = [p.value for p in Precision]
    result: list[Precision] = []
    for part in (p.strip().lower() for p in text.split(",")):
        if part not in choices:
            names = ", ".join(choices) + (" or auto" if allow_auto else "")
            raise BadInputError(f"--precision: '{part}' is not one of {names}; use e.g. --precision fp32,fp16")
        result.append(Precision(part))
    return tuple(dict.fromkeys(result))


def parse_precision(text: str) -> Precision:
    """One precision, for commands that compile one configuration."""
    found = parse_precisions(text, allow_auto=False)
    assert found is not None
    return found[0]


_SHAPE = re.compile(r"([^\[\],]*)\[([^\]]*)\]")


def parse_shapes(text: str | None) -> dict[str, list[int]]:
    """benchmark_app syntax: '[1,3,224,224]' for every input, or 'a[1,3,224,224],b[1,128]' by name."""
    if not text:
        return {}
    shapes: dict[str, list[int]] = {}
    matches = list(_SHAPE.finditer(text))
    leftover = _SHAPE.sub("", text).replace(",", "").strip()
    if not matches or leftover:
        raise BadInputError(
            f"--shape: cannot read '{text}'; use e.g. --shape [1,3,224,224] or --shape input[1,3,224,224]"
        )
    for match in matches:
        dims = [d.strip() for d in match.group(2).split(",")]
        if not all(d.isdigit() and int(d) > 0 for d in dims):
            raise BadInputError(f"--shape: '{match.group(0)}' must list whole numbers above 0, e.g. [1,3,224,224]")
        shapes[match.group(1).strip()] = [int(d) for d in dims]
    return shapes


_LAYOUT = re.compile(r"^(?:([^\[\],]+)\[([A-Za-z?.]+)\]|([A-Za-z?.]+))$")


def parse_layouts(text: str | None) -> dict[str, str]:
    """'NCHW' for every input, or 'images[NHWC],mask[NC]' by name; letters as OpenVINO layouts use them."""
    if not text:
        return {}
    layouts: dict[str, str] = {}
    for part in re.split(r",(?![^\[]*\])", text):
        match = _LAYOUT.match(part.strip())
        if not match:
            raise BadInputError(f"--layout: cannot read '{part}'; use e.g. --layout NCHW or --layout images[NHWC]")
        name, named_layout, bare = match.groups()
        layouts[(name or "").strip()] = (named_layout or bare).upper()
    return layouts


def parse_stop_rule(time: str, window_s: float, tolerance: float, max_s: float) -> StopRule:
    """'--time auto' measures in windows until they agree; '--time 3' measures 3 s, in windows all the same."""
    if time.strip().lower() == AUTO:
        return StopRule(window_s=window_s, tolerance=tolerance, max_s=max_s)
    try:
        seconds = float(time)
    except ValueError:
        seconds = 0.0
    if not (seconds > 0 and math.isfinite(seconds)):
        raise BadInputError(f"--time: '{time}' is neither a number of seconds above 0 nor auto; use e.g. --time 3")
    # A fixed run is cut into at least five windows, so its noise figures have something to stand on.
    return StopRule(window_s=min(window_s, seconds / 5), fixed_s=seconds)


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
    mode: Mode = Mode.GRID
    settings: Settings = ()
    auto_precision: bool = False
    hosts_default: bool = False

    def config(self, cell: Cell) -> PointConfig:
        return PointConfig(self.device.name, self.precision, self.batch, cell.streams, cell.nireq, self.mode,
                           self.input_mode, self.settings)

    def baseline(self, mode: Mode) -> PointConfig:
        """A hint baseline of this space: streams and requests 0, OpenVINO chooses them."""
        return PointConfig(self.device.name, self.precision, self.batch, 0, 0, mode, self.input_mode, self.settings)

    def default_baseline(self) -> PointConfig:
        """OpenVINO left alone on this space's device and batch: the IR as given, no precision hint, no --set
        property."""
        return PointConfig(self.device.name, Precision.FP32, self.batch, 0, 0, Mode.DEFAULT, self.input_mode)

    def owns(self, config: PointConfig) -> bool:
        """Whether `config` is a point of this space or one of its precision's hint baselines (the "OpenVINO
        default" baseline belongs to no precision: see `default_baseline`)."""
        mine = (self.device.name, self.precision, self.batch, self.input_mode, self.settings)
        if (config.device, config.precision, config.batch, config.input_mode, config.settings) != mine:
            return False
        if config.mode is Mode.DEFAULT:
            return False
        return config.mode is self.mode or (self.mode is Mode.GRID and not config.explicit)

    def with_hint(self, hint: Cell | None) -> Space:
        """The space with the THROUGHPUT hint's choice known; its values join an 'auto' space."""
        space = replace(self.space, hint=hint)
        if hint is None or not self.auto:
            return space
        return replace(space, streams=tuple(sorted({*space.streams, hint.streams})),
                       nireqs=tuple(sorted({*space.nireqs, hint.nireq})))


def plan(spec: SweepSpec, devices: list[DeviceInfo]) -> list[PlannedSpace]:
    """The sweep's spaces in order: device, --set combination, precision, batch (and hint, on a virtual device).
    Precisions 'auto' are those the device runs as math of their own, fp32 first; streams 'auto' run 1, 2, 4,
    ... to the device's maximum; requests 'auto' double up to the device's request bound
    (ov_tuner.devices.decisions)."""
    spaces = []
    for device in devices:
        virtual = bool(device.members)
        streams = (0,) if virtual else spec.streams or auto_streams(device)
        nireqs = spec.nireq or auto_nireq(streams, device)
        top = device.streams_range[1] if device.streams_range else None
        auto = spec.streams is None and spec.nireq is None
        modes = virtual_hints(device.name) if virtual else (Mode.GRID,)
        precisions = spec.precisions or auto_precisions(device)[0]
        hosted: set[tuple[int, InputMode]] = set()
        for settings in settings_combinations(spec.settings):
            for precision in precisions:
                for batch in spec.batches:
                    for mode in modes:
                        first = not virtual and (batch, spec.input_mode) not in hosted
                        hosted.add((batch, spec.input_mode))
                        spaces.append(PlannedSpace(device, precision, batch, spec.input_mode,
                                                   Space(streams, nireqs, top), auto, mode, settings,
                                                   auto_precision=spec.precisions is None, hosts_default=first))
    return spaces


def settings_combinations(axes: dict[str, tuple[str, ...]]) -> list[Settings]:
    """Every combination of the --set values, each as sorted (KEY, VALUE) pairs; [()] when nothing is set."""
    keys = sorted(axes)
    return [tuple(zip(keys, values, strict=True)) for values in product(*(axes[k] for k in keys))]


def parse_settings(texts: list[str]) -> dict[str, tuple[str, ...]]:
    """['KEY=V1,V2', 'OTHER=V'] -> {'KEY': ('V1', 'V2'), 'OTHER': ('V',)}; checked against a device later."""
    axes: dict[str, tuple[str, ...]] = {}
    for text in texts:
        name, sep, values = text.partition("=")
        key = name.strip().upper()
        parts = tuple(dict.fromkeys(v.strip() for v in values.split(",") if v.strip()))
        if not sep or not key or not parts:
            raise BadInputError(f"--set: cannot read '{text}'; use KEY=VALUE or KEY=V1,V2, e.g. --set "
                                "INFERENCE_NUM_THREADS=1,2")
        if key in OWN_AXES:
            raise BadInputError(f"--set: {key} is ov-tuner's own axis; use {OWN_AXES[key]}")
        axes[key] = parts
    return axes


# Properties ov-tuner sets itself from its own flags: --set must not fight them.
OWN_AXES = {"NUM_STREAMS": "--streams", "INFERENCE_PRECISION_HINT": "--precision", "PERFORMANCE_HINT": "--baselines"}


def cache_choice(text: str, out: Path) -> tuple[Path | None, bool]:
    """--cache-dir: 'auto' -> a cache beside the results file, used where compiling is slow; 'none' -> no cache;
    a folder -> that cache, used for every device. As SweepSpec's cache_dir and cache_everywhere."""
    choice = text.strip()
    if choice.lower() == "none":
        return None, False
    if choice.lower() == AUTO:
        return out.with_name(out.name + ".cache"), False
    return Path(choice), True
