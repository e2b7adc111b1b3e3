"""The servers' own files, written once for a single model and for a pipeline's stages: an OpenVINO Model Server
config.json listing each model, and a DL Streamer gst-launch-1.0 line with one inference element per model. Each
model carries the device, requests and compile properties that ran."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

OVMS_MODELS = "/models"
OVMS_CONFIG = "config.json"
# Where the DL Streamer line reads frames from where no video file is known.
VIDEO_STANDIN = "input.mp4"


@dataclass(frozen=True)
class ServedModel:
    """One model a server loads: its name (its folder under OVMS_MODELS), device, requests and properties; `batch`
    where the server should batch requests (None: the model's own)."""

    name: str
    device: str
    nireq: int
    properties: Mapping[str, str]
    batch: int | None = None


def ovms_config_text(models: Sequence[ServedModel]) -> str:
    """An OVMS config.json with one entry per model (validated against OVMS's schema in the tests)."""
    configs = [{"config": {"name": m.name, "base_path": f"{OVMS_MODELS}/{m.name}", "target_device": m.device,
                           "nireq": m.nireq, **({"batch_size": m.batch} if m.batch is not None else {}),
                           "plugin_config": dict(m.properties)}} for m in models]
    return json.dumps({"model_config_list": configs}, indent=2)


def inference_element(element: str, model: str, device: str, nireq: int, properties: Mapping[str, str],
                      *options: str) -> list[str]:
    """A DL Streamer inference element (gvainference, gvadetect, gvaclassify) with its model, device, requests, any
    other `options` (KEY=VALUE) and the compile properties as ie-config: KEY=VALUE pairs joined by commas, as DL
    Streamer parses it."""
    ie_config = ",".join(f"{k}={v}" for k, v in properties.items())
    return [element, f"model={model}", f"device={device}", f"nireq={nireq}", *options, f"ie-config={ie_config}"]


def dlstreamer_line(video: str, elements: Sequence[list[str]]) -> str:
    """A gst-launch-1.0 line: `video` decoded, each element followed by a queue, frames counted and dropped."""
    line = ["gst-launch-1.0", "filesrc", f"location={video}", "!", "decodebin3"]
    for element in elements:
        line += ["!", *element, "!", "queue"]
    line += ["!", "gvafpscounter", "!", "fakesink", "sync=false"]
    return " ".join(w if w == "!" else shlex.quote(w) for w in line)  # a bare '!', as gst-launch lines are written
