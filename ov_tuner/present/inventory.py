"""The host's tables: the OpenVINO devices present, with the properties that shape a tuning and the precisions auto
takes on each, and the zoo's reference architectures."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ov_tuner.analyse.devices import DeviceListing
from ov_tuner.present.document import Table, table
from ov_tuner.present.words.devices import merged_text

if TYPE_CHECKING:  # a type alone: the zoo builds models with OpenVINO, which `devices` never loads
    from ov_tuner.model.zoo import ZooEntry


def devices_table(listings: Sequence[DeviceListing]) -> Table:
    """Each device with the properties that shape a sweep, and what `--precision auto` sweeps on it."""
    rows = []
    for listing in listings:
        d, merged = listing.device, listing.merged
        streams = f"{d.streams_range[0]}-{d.streams_range[1]}" if d.streams_range else "n/a"
        auto = ", ".join(p.value for p in listing.auto) + (f" ({merged_text(merged)})" if merged else "")
        rows.append([d.name, d.full_name, streams, str(d.optimal_nireq or "n/a"), ", ".join(d.capabilities),
                     d.default_precision or "n/a", auto])
    return table(("device", "full name", "streams range", "optimal nireq", "capabilities", "default precision",
                  "--precision auto"), rows, "OpenVINO devices on this machine")


def zoo_table(models: list[ZooEntry]) -> Table:
    rows = []
    for m in models:
        inputs = ", ".join(f"{name} {element}{shape}" for name, element, shape in m.inputs)
        rows.append([m.name, m.description, inputs, f"{m.stats.parameters / 1e6:.2f} M",
                     f"{m.stats.flops / 1e9:.2f}"])
    return table(("name", "what", "inputs", "parameters", "GFLOPs"), rows,
                 "ov-tuner zoo (build one with `ov-tuner zoo build NAME -o DIR`)", ("parameters", "GFLOPs"))
