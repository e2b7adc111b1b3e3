"""Write a reference architecture as an OpenVINO IR into models/ (nothing is downloaded).

    python models/build.py                 # the default model, MobileNet-v2 at 224x224
    python models/build.py resnet50 tiny_conv
"""

from __future__ import annotations

import sys
from pathlib import Path

from ov_tuner.architectures import ARCHITECTURES, DEFAULT_ARCHITECTURE, build


def main(names: list[str]) -> int:
    unknown = [n for n in names if n not in ARCHITECTURES]
    if unknown:
        print(f"error: unknown model {', '.join(unknown)}; choose from {', '.join(ARCHITECTURES)}", file=sys.stderr)
        return 2
    for name in names or [DEFAULT_ARCHITECTURE]:
        print(f"wrote {build(name, Path(__file__).parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
