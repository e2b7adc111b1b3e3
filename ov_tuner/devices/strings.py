"""Device strings as OpenVINO means them: `AUTO:GPU,CPU`, `MULTI:GPU,CPU`, `HETERO:GPU,CPU` and `BATCH:GPU(4)` are
one device each. Pure: no OpenVINO import.

`--device` is repeatable, and each value is a comma list. In a list, a virtual device takes every plain name after
it as a member (`CPU,GPU,AUTO:GPU,CPU` is CPU, GPU and AUTO over GPU and CPU), up to the next virtual device;
BATCH takes one device, so a plain name after `BATCH:GPU(4)` is a device of its own. Where a list mixes a virtual
device with devices of their own, or names a device twice, a `Reading` says how it was read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from ov_tuner.errors import BadInputError, Given, Input

# The virtual devices OpenVINO builds over real ones: AUTO:GPU,CPU, MULTI:..., HETERO:..., BATCH:GPU(4).
VIRTUAL_PREFIXES = ("AUTO", "MULTI", "HETERO", "BATCH")
DEVICE_FLAG = Given(Input.DEVICE)
_BATCH_SIZE = re.compile(r"\(\d+\)$")


class ReadAs(str, Enum):
    """Why a reading of a --device value is said."""

    MEMBERS = "members"  # a virtual device took the plain names after it; the names before it are devices of their own
    BATCH_TAKES_ONE = "batch_takes_one"  # the plain names after BATCH:DEVICE(n) are devices of their own
    TWICE = "twice"  # a device named twice is swept once


@dataclass(frozen=True)
class Reading:
    """How one --device value was read: the devices it gave, and why that is worth saying."""

    written: str
    devices: tuple[str, ...]
    why: ReadAs


@dataclass(frozen=True)
class ParsedDevices:
    devices: tuple[str, ...]
    readings: tuple[Reading, ...]


def is_virtual(token: str) -> bool:
    """'AUTO:GPU' starts a virtual device; so do plain 'AUTO' and 'MULTI' (over every device present)."""
    head, colon, _ = token.partition(":")
    return head in VIRTUAL_PREFIXES and (bool(colon) or head in ("AUTO", "MULTI"))


def virtual_members(name: str) -> tuple[str, ...]:
    """The real devices a virtual device runs on ('AUTO:GPU,CPU' -> GPU, CPU; 'BATCH:GPU(4)' -> GPU); () for a
    real device. Plain 'AUTO' and 'MULTI' name no members: every device present."""
    head, _, tail = name.partition(":")
    if head not in VIRTUAL_PREFIXES:
        return ()
    return tuple(_BATCH_SIZE.sub("", part.strip()) for part in tail.split(",") if part.strip())


def parse_devices(values: list[str], given: Given = DEVICE_FLAG) -> ParsedDevices:
    """Every --device value (or a file's device key, `given`), read as OpenVINO means device strings (see the
    module's docstring)."""
    devices: list[str] = []
    readings: list[Reading] = []
    for written in values:
        found, mixed = _one_value(written, given)
        if mixed is not None:
            readings.append(Reading(written, tuple(found), mixed))
        for device in found:
            if device in devices:
                readings.append(Reading(written, (device,), ReadAs.TWICE))
            else:
                devices.append(device)
    if not devices:
        raise BadInputError(f"{given}: no device given; use e.g. {given.example('CPU')}, "
                            f"{given.example('CPU,GPU')} or {given.example('AUTO:GPU,CPU')}")
    return ParsedDevices(tuple(devices), tuple(readings))


def one_device(devices: tuple[str, ...], what: str, given: Given = DEVICE_FLAG) -> str:
    """The one device of what runs one configuration (`what`: a command, a pipeline stage); a virtual device such as
    AUTO:GPU,CPU is one."""
    if len(devices) != 1:
        raise BadInputError(f"{given}: {what} runs one configuration, on one device, not {', '.join(devices)}; "
                            "give one (AUTO:GPU,CPU is one device over both)")
    return devices[0]


def _one_value(written: str, given: Given) -> tuple[list[str], ReadAs | None]:
    """The devices of one --device value, and why its reading is worth saying (None where it is plain)."""
    tokens = [t.strip().upper() for t in written.split(",")]
    if not written.strip():
        raise BadInputError(f"{given}: an empty value; use e.g. {given.example('CPU')}")
    if any(not t for t in tokens):
        raise BadInputError(f"{given} {written}: an empty name between commas; e.g. "
                            f"{given.example('CPU,GPU')}")
    found: list[str] = []
    taking: list[str] | None = None  # a virtual device that takes the plain names after it: its name, then them
    why: ReadAs | None = None
    for token in tokens:
        if is_virtual(token):
            _close(taking, found, written, given)
            takes_members = ":" in token and not token.startswith("BATCH:")
            taking = [token] if takes_members else None
            if not takes_members:  # BATCH:GPU(4) takes one device; plain AUTO and MULTI take every one present
                _close([token], found, written, given)
        elif taking is not None:
            taking.append(token)
        else:
            if found and found[-1].startswith("BATCH:"):
                why = ReadAs.BATCH_TAKES_ONE
            found.append(token)
    _close(taking, found, written, given)
    if why is None and len(found) > 1 and any(":" in d and not d.startswith("BATCH:") for d in found):
        why = ReadAs.MEMBERS
    return found, why


def _close(open_virtual: list[str] | None, found: list[str], written: str, given: Given) -> None:
    """End the virtual device being read: 'AUTO:GPU' and members ['CPU'] make 'AUTO:GPU,CPU'."""
    if open_virtual is None:
        return
    name = ",".join(open_virtual)
    members = virtual_members(name)
    head = name.partition(":")[0]
    if ":" in name and not members:
        raise BadInputError(f"{given} {written}: {head} names no device after its colon; e.g. "
                            f"{given.example(head + ':GPU,CPU')}, or {given.example(head)} for every device present")
    twice = sorted({m for m in members if members.count(m) > 1})
    if twice:
        once = ",".join(dict.fromkeys(members))
        raise BadInputError(f"{given} {written}: {name} names {', '.join(twice)} twice; write {head}:{once}")
    found.append(name)
