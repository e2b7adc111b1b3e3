"""Which flag gives each of the user's inputs: an error below the CLI names the input (`ov_tuner.errors.Input`, or a
workload's own `OwnInput`, whose flag its command gives here), and the CLI's error boundary words it as the flag the
user typed."""

from __future__ import annotations

from ov_tuner.errors import Input, OvTunerError, OwnInput, worded

FLAGS: dict[Input, str] = {
    Input.RESULTS: "--out",
    Input.FROM: "--from",
    Input.DEVICE: "--device",
    Input.PRECISION: "--precision",
    Input.BATCH: "--batch",
    Input.SHAPE: "--shape",
    Input.LAYOUT: "--layout",
    Input.IMAGES: "--images",
    Input.ACCURACY_LOSS: "--max-accuracy-loss",
    Input.LATENCY: "--max-latency",
    Input.STREAMS: "--streams",
    Input.NIREQ: "--nireq",
    Input.SETTINGS: "--set",
    Input.MODELS_DIFFER: "--models-differ",
    Input.ADDRESS: "--address",
    Input.HOSTS_FOLDER: "--out-dir",
}
# The flag of each workload's own input, given by its command (own_flags).
OWN_FLAGS: dict[OwnInput, str] = {}


def own_flags(flags: dict[OwnInput, str]) -> None:
    """The flags a workload's command gives its own inputs (ov_tuner.errors.OwnInput)."""
    OWN_FLAGS.update(flags)


def flag(given: Input | OwnInput) -> str:
    """The flag that gives the input."""
    return FLAGS[given] if isinstance(given, Input) else OWN_FLAGS[given]


def said(error: OvTunerError) -> str:
    """The error's message as the CLI says it: each input it names, as its flag."""
    return worded(error.message, flag)
