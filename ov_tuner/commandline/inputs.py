"""The one place that says which flag gives each of the user's inputs: an error below the CLI names the input
(`ov_tuner.errors.Input`), and the CLI's error boundary words it as the flag the user typed."""

from __future__ import annotations

from ov_tuner.errors import Input, OvTunerError, worded

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
    Input.KV_PRECISION: "--kv-precision",
    Input.WEIGHTS: "--weights",
    Input.DQ_GROUP_SIZE: "--dq-group-size",
    Input.SHARED_PREFIX: "--shared-prefix",
    Input.INSTANCES: "--instances",
    Input.DRAFT: "--draft",
}


def said(error: OvTunerError) -> str:
    """The error's message as the CLI says it: each input it names, as its flag."""
    return worded(error.message, FLAGS.__getitem__)
