"""The decisions ov-tuner makes on each GPU whose properties were recorded (tests/data/igpu_properties.json):
the streams it sweeps, how far requests double, the precision hint per precision, and whether a THROUGHPUT
compile read back auto-batching. Pure: runs anywhere, no GPU needed.

    .venv/bin/python scripts/gpu_decisions.py
"""

from __future__ import annotations

import json
from pathlib import Path

from ov_tuner.devices.compiler import cache_pays
from ov_tuner.devices.decisions import (
    auto_nireq,
    auto_streams,
    device_info,
    precision_hint,
    request_bound,
)
from ov_tuner.schema import Precision
from ov_tuner.schema.devices import auto_batched

RECORDS = Path(__file__).resolve().parent.parent / "tests" / "data" / "igpu_properties.json"


def main() -> None:
    records = json.loads(RECORDS.read_text())
    print("| device (OpenVINO) | streams range | --streams auto | --nireq auto (bound) | default precision "
          "| fp32 hint | fp16 hint | bf16 hint | compile cache |")
    print("|---|---|---|---|---|---|---|---|---|")
    for record in records["devices"]:
        gpu = device_info(record["name"], record["properties"])
        hints = " | ".join(precision_hint(p, gpu) for p in (Precision.FP32, Precision.FP16, Precision.BF16))
        streams = auto_streams(gpu)
        print(f"| {record['label']} ({record['openvino'].split()[0]}) | {gpu.streams_range} | {streams} | "
              f"{auto_nireq(streams, gpu)} ({request_bound(gpu)}) | {gpu.default_precision or 'not printed'} | "
              f"{hints} | {'yes' if cache_pays(gpu) else 'no'} |")
    print()
    for compiled in records["compiled"]:
        verdict = "auto-batched: a THROUGHPUT_UNBATCHED baseline joins it" if auto_batched(compiled["read_back"]) \
            else "not auto-batched"
        print(f"- {compiled['label']}: {verdict}")


if __name__ == "__main__":
    main()
