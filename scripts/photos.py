"""Real photographs for calibration and accuracy: every photo scikit-image's wheel ships (skimage/data), re-encoded
as PNG into a folder; with --rotations, each also turned by 90, 180 and 270 degrees, what an orientation classifier
tells apart. Nothing is downloaded: scikit-image is a test dependency (`scripts/setup` installs it).

    .venv/bin/python scripts/photos.py OUT_DIR [--rotations]
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import skimage

# Smaller pictures are test patterns and icons, not photographs.
MIN_SIDE = 100
TURNS = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}


@contextmanager
def libpng_quiet() -> Iterator[None]:
    """Keep libpng's warnings about the photos' colour profiles (printed from C, on fd 2) off the terminal."""
    saved = os.dup(2)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def write_photos(out: Path, rotations: bool = False) -> int:
    """Write the photos (and their rotations) into `out`; return how many files were written."""
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    for path in sorted((Path(skimage.__file__).parent / "data").iterdir()):
        if path.suffix.lower() not in (".png", ".jpg"):
            continue
        with libpng_quiet():
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None or min(image.shape[:2]) < MIN_SIDE:
            continue
        cv2.imwrite(str(out / f"{path.stem}_0.png"), image)
        written += 1
        for angle, turn in TURNS.items() if rotations else ():
            cv2.imwrite(str(out / f"{path.stem}_{angle}.png"), cv2.rotate(image, turn))
            written += 1
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--rotations", action="store_true")
    args = parser.parse_args()
    print(f"{write_photos(args.out, args.rotations)} images in {args.out}")


if __name__ == "__main__":
    main()
