"""A video clip written from still images with OpenCV (Motion-JPEG in AVI, which every OpenCV build both writes and
reads): what the pipeline's decoder decodes, made from real photographs instead of a download."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from ov_tuner.errors import BadInputError

FOURCC = "MJPG"


def write_clip(images: list[np.ndarray], path: Path, fps: float, size: tuple[int, int], seconds: float) -> Path:
    """Write `seconds` of video at `fps` and `size` (width, height) to `path`: each image resized to fill the frame
    and held for a second's frames, cycling through `images`, with a slow pan so that no two frames are alike (a
    still frame decodes faster than a camera's)."""
    if not images:
        raise BadInputError("no images to write a clip from; give a folder of photos (scripts/photos.py makes one)")
    if path.suffix.lower() != ".avi":
        raise BadInputError(f"write the clip to a .avi file ({FOURCC} in AVI), not {path.name}")
    width, height = size
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*FOURCC), fps, (width, height))
    if not writer.isOpened():
        raise BadInputError(f"OpenCV cannot write {path}; check that its folder exists and is writable")
    per_image = max(1, round(fps))
    try:
        for index in range(max(1, round(fps * seconds))):
            image = images[(index // per_image) % len(images)]
            big = cv2.resize(image, (width + width // 4, height + height // 4))
            shift = (index % per_image) * (width // 4) // per_image
            writer.write(np.ascontiguousarray(big[:height, shift:shift + width]))
    finally:
        writer.release()
    return path
