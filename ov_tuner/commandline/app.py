"""The Typer app and what its commands share: consoles, exit codes, option types, the one-line error boundary."""

from __future__ import annotations

import functools
import inspect
import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from ov_tuner import API_VERSION, __version__
from ov_tuner.commandline.inputs import said
from ov_tuner.commandline.renamed import RenamedFlagsGroup
from ov_tuner.devices.strings import parse_devices
from ov_tuner.errors import OvTunerError
from ov_tuner.present.words.devices import quantizing_text, reading_text

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  cls=RenamedFlagsGroup,
                  help="Find the OpenVINO streams x requests x batch x precision that gets the most out of a device.")
# Piped or captured output is still read by people (logs, reports): give tables room there.
# A terminal's own width; piped output, COLUMNS where the user set it, else 180 (long table rows stay whole).
out = Console(width=None if Console().is_terminal or "COLUMNS" in os.environ else 180)
err = Console(stderr=True)
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130

F = TypeVar("F", bound=Callable[..., Any])

@dataclass
class GlobalOptions:
    """Options given before the command (`ov-tuner --verbose sweep ...`)."""

    verbose: bool = False


options = GlobalOptions()


def _print_version(asked: bool) -> None:
    if asked:
        out.print(f"ov-tuner {__version__}, plug-in API {API_VERSION}", highlight=False)
        raise typer.Exit()


@app.callback()
def main(verbose: Annotated[bool, typer.Option("--verbose", "-v", help="With an error or a failed point, also print "
                                               "OpenVINO's whole message, not only its first line.")] = False,
         version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                               help="Print ov-tuner's version and its plug-in API's, and exit.")]
         = False) -> None:
    options.verbose = verbose


def one_line_errors(command: F) -> F:
    """Turn an OvTunerError into one line on stderr, each input it names said as its flag, and a non-zero exit; let
    real bugs keep their traceback. With --verbose, the message of what caused it (often several lines from
    OpenVINO) follows."""
    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except OvTunerError as e:
            err.print(f"[bold red]error:[/bold red] {escape(said(e))}", highlight=False, soft_wrap=True)
            if options.verbose and e.__cause__ is not None:
                err.print(str(e.__cause__).strip(), highlight=False, markup=False)
            raise typer.Exit(EXIT_BAD_INPUT) from None
    return wrapper  # type: ignore[return-value]


def with_options_of(builder: Callable[..., Any], leave_out: tuple[str, ...] = ()) -> Callable[[F], F]:
    """Give a command every option of `builder` (less `leave_out`, which keep their defaults) besides its own,
    and call it with `spec=builder(...)`: `sweep` and `fleet sweep` take the same flags from one list. Typer
    reads a command's options from its signature and annotations, so the wrapper carries the joined ones."""
    def decorate(command: F) -> F:
        taken = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
                 for p in inspect.signature(builder, eval_str=True).parameters.values() if p.name not in leave_out]
        own = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
               for p in inspect.signature(command, eval_str=True).parameters.values() if p.name != "spec"]

        @functools.wraps(command)
        def wrapper(**kwargs: Any) -> Any:
            spec = builder(**{p.name: kwargs.pop(p.name) for p in taken})
            return command(spec=spec, **kwargs)

        joined = taken + own
        wrapper.__signature__ = inspect.Signature(joined)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in joined}
        return wrapper  # type: ignore[return-value]
    return decorate


def read_devices(values: list[str] | None) -> tuple[str, ...]:
    """The --device values (CPU where none) read as OpenVINO means them, saying in one line each how an ambiguous one
    was read."""
    parsed = parse_devices(values or ["CPU"])
    for reading in parsed.readings:
        err.print(reading_text(reading), highlight=False, markup=False)
    return parsed.devices


def say_quantizing(images: bool) -> None:
    """NNCF starts making the INT8 IR: said as the sweep says it."""
    err.print(quantizing_text(images), highlight=False, soft_wrap=True)


@contextmanager
def ctrl_c_interrupts() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt while inside, even where the process was started with SIGINT ignored (a
    background job of a script, nohup): Python then installs no handler of its own, and Ctrl-C or `kill -INT`
    would do nothing."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def stop_on_ctrl_c(unit: str) -> Iterator[threading.Event]:
    """First Ctrl-C: finish the current `unit` (point, trial), then stop. Second Ctrl-C: stop at once."""
    stop = threading.Event()

    def handler(signum: int, frame: object) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        err.print(f"stopping after the current {unit} (Ctrl-C again to stop now)")

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)
