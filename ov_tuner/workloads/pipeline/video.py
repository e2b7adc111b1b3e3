"""Each camera's frames for a pipeline trial: the video file decoded by the camera's own OpenCV capture and looped,
or, without a file, one generated frame given again and again.

Why a capture per camera: a real camera's stream is decoded on its own, so decoding is a cost per camera, and a
trial at more cameras pays it more often. Each capture decodes on the thread that reads it (one FFmpeg thread):
the trial's decode threads are then the decoder's whole share of the CPUs, as a split means them to be.
"""

from __future__ import annotations

import statistics
import threading
import time
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from ov_tuner.errors import BadInputError
from ov_tuner.workloads.pipeline.schema import VideoSource


def _capture(path: Path) -> cv2.VideoCapture:
    capture = cv2.VideoCapture(str(path), cv2.CAP_ANY, [cv2.CAP_PROP_N_THREADS, 1])
    if not capture.isOpened():
        raise BadInputError(f"video {path}: OpenCV cannot open it; give a video file OpenCV reads, "
                            "e.g. a Motion-JPEG .avi")
    return capture


def video_size(path: Path) -> tuple[int, int]:
    """The (width, height) of the video at `path`, from its first frame: a file OpenCV opens but cannot decode
    fails here, when the pipeline is read, not in the middle of a trial."""
    capture = _capture(path)
    try:
        ok, frame = capture.read()
    finally:
        capture.release()
    if not ok or frame is None:
        raise BadInputError(f"video {path}: OpenCV opens it but cannot read a first frame; give a video file OpenCV "
                            "decodes, e.g. a Motion-JPEG .avi")
    return int(frame.shape[1]), int(frame.shape[0])


class CameraFeed:
    """One camera's frames, BGR HWC uint8. A capture is not thread safe, and a camera's frames come in order: the
    feed reads one frame at a time under its own lock. A generated frame is the same read-only array each time, shared
    by every feed of its size."""

    def __init__(self, video: VideoSource) -> None:
        self._lock = threading.Lock()
        self._path = Path(video.file) if video.file else None
        self._capture = _capture(self._path) if self._path else None
        self._frame = None if self._capture is not None else _generated(video.width, video.height)

    def read(self) -> np.ndarray:
        """The camera's next frame: at the end of the file, the first again (the capture reopened: seeking back is
        not exact with every codec and backend)."""
        if self._frame is not None:
            return self._frame
        assert self._capture is not None and self._path is not None
        with self._lock:
            ok, frame = self._capture.read()
            if not ok:
                self._capture.release()
                self._capture = _capture(self._path)
                ok, frame = self._capture.read()
            if not ok:
                raise BadInputError(f"video {self._path}: OpenCV cannot read a frame after reopening it; give a "
                                    "video file OpenCV decodes, e.g. a Motion-JPEG .avi")
            return frame

    def close(self) -> None:
        with self._lock:
            if self._capture is not None:
                self._capture.release()


@lru_cache(maxsize=2)
def _generated(width: int, height: int) -> np.ndarray:
    """A frame of a horizontal gradient, made once: feeds without a file cost no decoding and no memory per camera."""
    ramp = np.linspace(0, 255, width, dtype=np.uint8)
    frame = np.ascontiguousarray(np.broadcast_to(ramp[None, :, None], (height, width, 3)))
    frame.setflags(write=False)
    return frame


def decode_seconds(video: VideoSource, frames: int = 24) -> float:
    """A frame's decode on one thread, in seconds: the median of `frames` reads after a first (0 for a generated
    frame, which costs no decoding). What the pipeline search shares the cores out by, beside each stage's cost."""
    feed = CameraFeed(video)
    try:
        feed.read()
        times = []
        for _ in range(frames):
            start = time.perf_counter()
            feed.read()
            times.append(time.perf_counter() - start)
    finally:
        feed.close()
    return statistics.median(times) if video.file else 0.0


def open_feeds(video: VideoSource, cameras: int) -> list[CameraFeed]:
    """`cameras` feeds of `video`, each with its own capture; a file that cannot be decoded fails before any opens."""
    if video.file:
        video_size(Path(video.file))
    return [CameraFeed(video) for _ in range(cameras)]
