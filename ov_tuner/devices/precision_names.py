"""Precisions as a user writes them: on the command line (--precision) or in a file (a pipeline stage's precision),
read by the same parsers so that the same mistake gets the same line, in the words of where it was written. Pure."""

from __future__ import annotations

from ov_tuner.errors import BadInputError, Given, Input
from ov_tuner.schema import AUTO, Precision

PRECISION_FLAG = Given(Input.PRECISION)


def parse_precisions(text: str, allow_auto: bool = True, given: Given = PRECISION_FLAG,
                     example: str = "fp32,fp16") -> tuple[Precision, ...] | None:
    """'fp32,fp16' -> (FP32, FP16); 'auto' (or 'auto,int8': int8 is never part of auto, see int8_asked) -> None,
    the precisions each device runs differently, resolved per device. `example` is what a mistake's line suggests."""
    parts = [p.strip().lower() for p in text.split(",")]
    if allow_auto and AUTO in parts:
        if set(parts) - {AUTO, Precision.INT8.value}:
            raise BadInputError(f"{given}: auto goes alone or with int8 ('auto,int8'), not with "
                                f"'{text}'; use e.g. {given.example(AUTO)} or {given.example(example)}")
        return None
    choices = [p.value for p in Precision]
    result: list[Precision] = []
    for part in parts:
        if part not in choices:
            names = ", ".join(choices) + (" or auto" if allow_auto else "")
            raise BadInputError(f"{given}: '{part}' is not one of {names}; use e.g. {given.example(example)}")
        result.append(Precision(part))
    return tuple(dict.fromkeys(result))


def int8_asked(text: str) -> bool:
    """Whether --precision names int8 (alone, in a list, or beside auto)."""
    return Precision.INT8.value in (p.strip().lower() for p in text.split(","))


def one_precision(text: str, what: str, given: Given = PRECISION_FLAG) -> Precision | None:
    """The precision of what runs one configuration (`what`: a command, a pipeline stage): one precision, or None
    for auto (resolved per device)."""
    found = parse_precisions(text, given=given, example="fp16")
    if found is None and not int8_asked(text):
        return None
    if found is None or len(found) != 1:
        raise BadInputError(f"{given} {text}: {what} runs one configuration; give one precision, e.g. "
                            f"{given.example('int8')}, or auto")
    return found[0]
