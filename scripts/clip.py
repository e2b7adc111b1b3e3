"""A video clip from a folder of photos, for the pipeline's decoder: Motion-JPEG AVI, each photo held a second with a
slow pan (what `scripts/demo` decodes as its cameras). Nothing is downloaded: scripts/photos.py writes the photos.

    .venv/bin/python scripts/clip.py PHOTOS_DIR OUT.avi [--fps 15] [--size 1280x720] [--seconds 8]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ov_tuner.model.clip import write_clip
from ov_tuner.model.inputs import load_images


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("photos", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--fps", type=float, default=15.0)
    parser.add_argument("--size", default="1280x720", help="width x height")
    parser.add_argument("--seconds", type=float, default=8.0)
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.lower().split("x"))
    path = write_clip(load_images(args.photos), args.out, args.fps, (width, height), args.seconds)
    print(f"wrote {path}: {args.seconds:g} s at {args.fps:g} FPS, {width}x{height}")


if __name__ == "__main__":
    main()
