"""Flags renamed in this release, kept working for it: before a command parses its options, each old name is
rewritten to its successor (a value in other units converted) with one line on stderr naming the successor. None is
offered in a command's help, so no one starts using them. An entry goes one release after its rename (CHANGELOG.md's
Deprecated section lists them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import typer
from typer.core import TyperGroup


@dataclass(frozen=True)
class Renamed:
    """A flag's successor, and how a value given under the old name reads under the new one."""

    successor: str
    convert: Callable[[str], str] = str


# Flags renamed on several commands: a round's repetitions are passes; a folder is --out-dir on every command (-o is a
# file's); --plot-dir is --out-dir.
ROUNDS = {"--rounds": Renamed("--passes")}
FOLDER = {"-o": Renamed("--out-dir")}
PLOTS = {"--plot-dir": Renamed("--out-dir")}
# Each command, by the words that call it, and its renamed flags: each command adds its own (renamed_flags).
RENAMED: dict[str, dict[str, Renamed]] = {}


def renamed_flags(command: str, flags: dict[str, Renamed]) -> None:
    """The flags of `command` (the words that call it: "fleet sweep") renamed in this release."""
    RENAMED[command] = {**RENAMED.get(command, {}), **flags}


def minutes_as_seconds(value: str) -> str:
    """A value given in minutes, as seconds (--minutes is --seconds)."""
    try:
        return f"{float(value) * 60:g}"
    except ValueError:
        return value  # the successor's own check says what is wrong with it


def successors(command: str, args: list[str]) -> tuple[list[str], list[str]]:
    """`args` of `command` with each renamed flag (`--old V` or `--old=V`) under its successor, and a line for each
    flag renamed; nothing after `--` is a flag."""
    renamed = RENAMED.get(command, {})
    found: list[str] = []
    said: list[str] = []
    given = iter(args)
    for arg in given:
        if arg == "--":
            found += [arg, *given]
            break
        name, equals, value = arg.partition("=")
        if name not in renamed:
            found.append(arg)
            continue
        new = renamed[name]
        value = value if equals else next(given, "")
        converted = new.convert(value)
        found += [new.successor, converted] if value else [new.successor]
        said.append(f"ov-tuner {command}: {name} is now {new.successor}"
                    f"{f' ({name} {value} is {new.successor} {converted})' if converted != value else ''}; "
                    f"{name} goes in the next release")
    return found, said


class RenamedFlagsGroup(TyperGroup):
    """A command group that hands each command its arguments with renamed flags under their successors."""

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
        """The command `args` name and the rest of them, renamed flags under their successors (typer's own click
        types are private, hence Any)."""
        name, command, rest = super().resolve_command(ctx, args)
        words = [c.info_name for c in _chain(ctx) if c.parent is not None and c.info_name]
        found, said = successors(" ".join([*words, name or ""]), rest)
        for line in said:
            typer.echo(line, err=True)
        return name, command, found


def _chain(ctx: Any) -> list[Any]:
    """The contexts from the root's down to `ctx`."""
    found = []
    while ctx is not None:
        found.append(ctx)
        ctx = ctx.parent
    return found[::-1]
