"""Write reference architectures as OpenVINO IR into models/ (nothing is downloaded).

    python models/build.py                 # the default model, MobileNet-v2 at 224x224
    python models/build.py resnet50 bert_encoder

The same as `ov-tuner zoo build NAME -o models`; `ov-tuner zoo list` lists the names.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ov_tuner.errors import OvTunerError
from ov_tuner.model.architectures import DEFAULT_ARCHITECTURE
from ov_tuner.model.zoo import build_zoo_model


def main(names: list[str]) -> int:
    try:
        for name in names or [DEFAULT_ARCHITECTURE]:
            path, stats = build_zoo_model(name, Path(__file__).parent)
            print(f"wrote {path}: {stats.parameters / 1e6:.2f} M parameters, {stats.flops / 1e9:.2f} GFLOPs")
    except OvTunerError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
