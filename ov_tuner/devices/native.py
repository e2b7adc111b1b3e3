"""What OpenVINO says beside its return values: native output written to the process's stdout and stderr, and errors
whose first meaningful line is what a person needs; the whole message stays for --verbose."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

# The most of OpenVINO's first meaningful line a one-line message quotes.
ERROR_LINE_CHARS = 300


def ov_error_text(error: BaseException) -> str:
    """The first line of OpenVINO's message that says what is wrong: its source-file preamble ("Exception from
    src/...", "Check '...' failed at ...") skipped, cut at ERROR_LINE_CHARS. The whole message stays with the
    exception for --verbose."""
    lines = [ln.strip() for ln in str(error).splitlines() if ln.strip()]
    kept = [ln for ln in lines if not ln.startswith(("Exception from src", "Check '"))]
    first = (kept or lines or [type(error).__name__])[0]
    return first if len(first) <= ERROR_LINE_CHARS else first[:ERROR_LINE_CHARS - 3] + "..."


class PointFailure(Exception):
    """A configuration that cannot run (compile error, out of memory, failed first inference).

    Not an OvTunerError: the sweep stores it with the point and goes on with the next configuration. Its text
    is one line ("compile: <OpenVINO's first meaningful line>"); `detail` keeps OpenVINO's whole message.
    """

    def __init__(self, phase: str, error: BaseException) -> None:
        self.phase = phase
        self.detail = str(error).strip() or repr(error)
        text = ov_error_text(error) if isinstance(error, RuntimeError) else repr(error)
        super().__init__(f"{phase}: {text}")


@contextmanager
def native_output_kept() -> Iterator[Callable[[], str]]:
    """While OpenVINO reads, converts, reshapes or compiles, what native code writes to the process's own stdout and
    stderr (file descriptors 1 and 2) goes to a temporary file instead of between ov-tuner's lines: TensorFlow's
    frontend logs there through absl, convert_model prints its arguments when it fails, a GPU driver's kernel
    compiler prints its warnings. Python's own writes (a progress bar's) still reach the terminal: sys.stdout and
    sys.stderr point at the original descriptors meanwhile. Yields what native code wrote, for the compile's
    record or the error's detail."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    python_streams = (sys.stdout, sys.stderr)
    with tempfile.TemporaryFile() as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        sys.stdout, sys.stderr = (_on_fd(stream, fd, kept)
                                  for stream, fd, kept in zip(python_streams, (1, 2), saved, strict=True))
        try:
            yield lambda: (log.seek(0), log.read().decode(errors="replace").strip())[1]
        finally:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            sys.stdout, sys.stderr = python_streams
            for fd, kept in zip((1, 2), saved, strict=True):
                os.dup2(kept, fd)
                os.close(kept)


def _on_fd(stream: TextIO, fd: int, kept: int) -> TextIO:
    """`stream`, or, where it writes to descriptor `fd`, a stream on the copy `kept` of that descriptor (left open:
    the caller closes it)."""
    try:
        writes_to_fd = stream.fileno() == fd
    except (AttributeError, OSError, ValueError):  # a stream of a test runner or a notebook: not a descriptor
        writes_to_fd = False
    if not writes_to_fd:
        return stream
    return open(kept, "w", encoding=getattr(stream, "encoding", None) or "utf-8", errors="replace",
                buffering=1, closefd=False)


def with_log(error: Exception, log: str) -> Exception:
    """The error OpenVINO raised, with what its frontends wrote to stderr meanwhile: the text --verbose prints."""
    return RuntimeError(f"{error}\n{log}".strip()) if log else error


def failure_text(error: Exception) -> str:
    """A failed point's stored error: its one line, then OpenVINO's whole message where it says more."""
    if isinstance(error, PointFailure) and error.detail not in str(error):
        return f"{error}\n{error.detail}"
    return str(error)
