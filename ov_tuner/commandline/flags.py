"""The command line's flags read into values: counts, precisions, shapes, layouts, stop rules, --set axes, the compile
cache, token ranges, on/off switches and lists of values searched; each bad value is one line naming the flag and an
example."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

# The precision and device parsers live below the CLI, where a pipeline file's stages read theirs too.
from ov_tuner.devices.precision_names import int8_asked as int8_asked
from ov_tuner.devices.precision_names import one_precision as one_precision
from ov_tuner.devices.precision_names import parse_precisions
from ov_tuner.devices.strings import one_device as one_device
from ov_tuner.errors import BadInputError
from ov_tuner.schema import AUTO, Int8Options, Precision, Preset, StopRule


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


def int8_options(asked: bool, preset: Preset, subset_size: int | None, max_drop: float | None,
                 ) -> Int8Options | None:
    """How to make the INT8 IR, when int8 is asked for; --int8-max-drop without int8 is a mistake said at once."""
    if not asked:
        if max_drop is not None:
            raise BadInputError("--int8-max-drop applies to int8: add it to --precision, e.g. --precision fp32,int8")
        return None
    return Int8Options(preset, subset_size, max_drop)


def parse_precision(text: str) -> Precision:
    """One precision, by name (recommend --precision: int8 included)."""
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


def parse_stop_rule(text: str, window_s: float, tolerance: float, max_s: float) -> StopRule:
    """'--seconds auto' measures in windows until they agree; '--seconds 3' measures 3 s, in windows all the same."""
    if text.strip().lower() == AUTO:
        return StopRule(window_s=window_s, tolerance=tolerance, max_s=max_s)
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not (seconds > 0 and math.isfinite(seconds)):
        raise BadInputError(f"--seconds: '{text}' is neither a number of seconds above 0 nor auto; use e.g. "
                            "--seconds 3")
    # A fixed run is cut into at least five windows, so its noise figures have something to stand on.
    return StopRule(window_s=min(window_s, seconds / 5), fixed_s=seconds)


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


def parse_span(text: str, flag: str) -> tuple[int, int]:
    """'64' or '64-128' as an inclusive range of whole numbers above 0."""
    try:
        low, _, high = text.partition("-")
        bounds = (int(low), int(high or low))
    except ValueError:
        bounds = (0, 0)
    if not 1 <= bounds[0] <= bounds[1]:
        raise BadInputError(f"{flag} {text}: give a number of tokens above 0, or a range low-high such as 64-128")
    return bounds


def parse_switches(text: str, flag: str) -> tuple[bool, ...]:
    """'on', 'off' or 'on,off' as the values searched."""
    words = [w.strip().lower() for w in text.split(",") if w.strip()]
    if not words or any(w not in ("on", "off") for w in words):
        raise BadInputError(f"{flag} {text}: give on, off or on,off")
    return tuple(dict.fromkeys(w == "on" for w in words))


def whole_number(value: str) -> int:
    """A whole number of 0 or more (ValueError otherwise)."""
    if int(value) < 0:
        raise ValueError(value)
    return int(value)


def count_above_zero(value: str) -> int:
    """A whole number above 0 (ValueError otherwise)."""
    if int(value) < 1:
        raise ValueError(value)
    return int(value)


def parse_values(text: str, flag: str, parse: Callable[[str], Any], none_word: str = "default") -> tuple[Any, ...]:
    """A comma-separated list; `none_word` means the default of whatever reads it (None)."""
    found = []
    for word in (w.strip() for w in text.split(",") if w.strip()):
        try:
            found.append(None if word.lower() == none_word else parse(word))
        except ValueError:
            raise BadInputError(f"{flag} {word}: give a comma-separated list of {none_word} and values this flag "
                                "takes (ov-tuner llm --help lists them)") from None
    if not found:
        raise BadInputError(f"{flag} is empty: give at least one value, or {none_word}")
    return tuple(dict.fromkeys(found))
