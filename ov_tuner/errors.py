"""Errors a user can act on. Each message says what is wrong and what to do.

Core code raises these and never prints or exits; the CLI turns them into one line and a
non-zero exit. Anything else is a bug and keeps its traceback.

A message names the user's inputs it is about (`Input`) by a placeholder, never by a flag: the library sits under
more than one front end. `str(error)` words each input as `Input`'s words (what a notebook reads); the CLI words it
as its flag (ov_tuner/commandline/inputs.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

_PLACEHOLDER = re.compile("\ue000([A-Z_]+)\ue001")  # private-use marks: no path or value a user writes holds them


class Input(Enum):
    """One of the user's inputs an error can name; its value is its words. Formatted into a message, it is a
    placeholder that whoever shows the message replaces (`worded`)."""

    RESULTS = "results"  # the results file a command writes or reads
    FROM = "answer file"  # a sweep's results file whose answer a job runs
    DEVICE = "device"
    PRECISION = "precision"
    BATCH = "batch"
    SHAPE = "shape"
    LAYOUT = "layout"
    IMAGES = "images"  # the folder of real images
    ACCURACY_LOSS = "max accuracy loss"
    LATENCY = "max latency"
    STREAMS = "streams"
    NIREQ = "nireq"
    SETTINGS = "settings"  # compile properties as sweep axes (KEY=V1,V2)
    MODELS_DIFFER = "models_differ=True"  # compare's consent to files of different models
    ADDRESS = "address"  # the Ray cluster's
    HOSTS_FOLDER = "output folder"  # the folder of a fleet's results files, one a host

    def __str__(self) -> str:
        return f"\ue000{self.name}\ue001"

    def __format__(self, spec: str) -> str:
        return str(self)


# Each workload's own inputs, by name (OwnInput).
_OWN: dict[str, OwnInput] = {}


@dataclass(frozen=True)
class OwnInput:
    """An input of one workload's own, declared by that workload (an LLM's KV cache precisions searched): an error
    names it as it names an Input, and it is worded the same way, by its `value` (its words, as a notebook reads them)
    or by the flag its command gives it (ov_tuner/commandline/inputs.own_flags). `name`, its placeholder's, is
    UPPER_CASE and names no other input."""

    name: str
    value: str

    def __post_init__(self) -> None:
        if self.name in Input.__members__ or _OWN.get(self.name, self) != self:
            raise ValueError(f"the input {self.name} is declared twice")
        _OWN[self.name] = self

    def __str__(self) -> str:
        return f"\ue000{self.name}\ue001"

    def __format__(self, spec: str) -> str:
        return str(self)


def own_inputs() -> tuple[OwnInput, ...]:
    """Every workload's own input declared so far (as its modules are imported)."""
    return tuple(_OWN.values())


def named(name: str) -> Input | OwnInput:
    """The input whose placeholder holds `name`."""
    return Input[name] if name in Input.__members__ else _OWN[name]


def worded(message: str, name: Callable[[Input | OwnInput], str]) -> str:
    """`message` with each input's placeholder replaced by `name` of it (its words, or the CLI's flag)."""
    return _PLACEHOLDER.sub(lambda m: name(named(m.group(1))), message)


@dataclass(frozen=True)
class Given:
    """Where a value was given, as an error about it names it: one of the user's inputs (`Input.PRECISION`: the
    CLI says `--precision`, a notebook `precision`), a place the caller names (the CLI's `-o`), or a key of a file
    (name `p.toml [[stage]] 2 precision`, key `precision`), so that one parser says the same mistake in the words
    of each."""

    name: Input | str
    key: str | None = None  # the file's key; None for an input or a flag

    def __str__(self) -> str:
        return str(self.name)

    def example(self, value: str) -> str:
        """`value` written as the user would give it: `--precision fp16`, or `precision = "fp16"`."""
        return f"{self.name} {value}" if self.key is None else f'{self.key} = "{value}"'


class OvTunerError(Exception):
    """Base class: a problem with the user's input or environment, not a bug in ov-tuner. Its first argument is the
    message with the placeholders of the inputs it names."""

    @property
    def message(self) -> str:
        """The message as raised, its inputs still placeholders."""
        return str(self.args[0]) if self.args else ""

    @property
    def inputs(self) -> tuple[Input | OwnInput, ...]:
        """The user's inputs the message names, in order, each once."""
        return tuple(dict.fromkeys(named(m) for m in _PLACEHOLDER.findall(self.message)))

    def __str__(self) -> str:
        return worded(self.message, lambda given: given.value)


class BadInputError(OvTunerError):
    """A flag, a file or a value that cannot be used as given."""


class ModelError(OvTunerError):
    """The model cannot be read, reshaped or prepared for the requested configuration."""


class DeviceError(OvTunerError):
    """A requested OpenVINO device is unknown or not present on this machine."""


class ResultsFileError(BadInputError):
    """A results file given to take what it deploys from (--from, a pipeline stage's answer) that holds no answer for
    the model given: a pipeline's results file, one without a sweep point, or a sweep of another model."""


class IncompatibleResultsError(OvTunerError):
    """A results file holds measurements that must not be mixed with the new ones."""


class OutputError(OvTunerError):
    """A destination (results file, output file or folder) that cannot be written."""


class ResultsWriteError(OvTunerError):
    """Writing to the results file failed mid-run (disk full, file or folder made read-only)."""


class MissingExtraError(OvTunerError):
    """An optional part of ov-tuner (an extra such as [int8]) is not installed."""


class QuantizationError(OvTunerError):
    """NNCF could not quantize a model (an operation it does not handle, a model it trips on)."""
