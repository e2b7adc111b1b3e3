"""Errors a user can act on. Each message says what is wrong and what to do.

Core code raises these and never prints or exits; the CLI turns them into one line and a
non-zero exit. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Given:
    """Where a value was given, as an error about it names it: a flag (`--precision`), or a key of a file (name
    `p.toml [[stage]] 2 precision`, key `precision`), so that one parser says the same mistake in the words of
    either."""

    name: str
    key: str | None = None  # the file's key; None for a flag

    def example(self, value: str) -> str:
        """`value` written as the user would give it: `--precision fp16`, or `precision = "fp16"`."""
        return f"{self.name} {value}" if self.key is None else f'{self.key} = "{value}"'


class OvTunerError(Exception):
    """Base class: a problem with the user's input or environment, not a bug in ov-tuner."""


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
