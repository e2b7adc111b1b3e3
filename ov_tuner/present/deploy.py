"""How `recommend --format` writes a workload's forms: each workload hands over its own map (a format to its
builder, Forms) through its registration (ov_tuner.registry), in its folder (workloads/NAME/present/deploy_forms.py).
All carry the properties that ran, and each names the file it is written to (-o) in the steps that use it."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ov_tuner.present.deploy_format import DeployFormat


@dataclass(frozen=True)
class Where:
    """Where a form goes: the file it is `written_to` (None: standard output), and the -load_config file a
    benchmark_app line names (`config_file`, recommend --config-out; None: LOAD_CONFIG_FILE)."""

    written_to: str | None = None
    config_file: str | None = None


@dataclass(frozen=True)
class Form:
    """One form as printed: its file's text, the steps to take `first` (make the model it loads, before anything
    reads it), and the steps that `then` use it."""

    text: str
    first: tuple[str, ...] = ()
    then: tuple[str, ...] = ()


# A workload's forms: each format it comes in, by name (a DeployFormat, ov-tuner's own, or one a plug-in adds), and
# how that form is built from its answer (ov_tuner.registry's Registration.forms hands them over).
Forms = Mapping[str, Callable[[Any, Where], Form]]


def run_step(command: str, where: Where) -> tuple[str, ...]:
    """The step that runs the form, where it is written to a file."""
    return (f"{command} {shlex.quote(where.written_to)}",) if where.written_to else ()


def _name(fmt: str) -> str:
    """A form's name: a DeployFormat member's value (str() of one is its class and member), or the name itself."""
    return str(getattr(fmt, "value", fmt))


def by_name(forms: Forms) -> dict[str, Callable[[Any, Where], Form]]:
    """A workload's forms by their names, ov-tuner's own first in DeployFormat's order, then a plug-in's own as it
    lists them (a DeployFormat member hashes apart from its name, so a map keyed by them is read through this)."""
    named = {_name(fmt): build for fmt, build in forms.items()}
    own = [fmt.value for fmt in DeployFormat if fmt.value in named]
    return {name: named[name] for name in [*own, *(n for n in named if n not in own)]}


def formats_for(forms: Forms) -> str:
    """The formats a workload's answer comes in, as a flag's choices are listed: 'python, ovms or json'."""
    served = list(by_name(forms))
    return f"{', '.join(served[:-1])} or {served[-1]}"


def deploy_form(fmt: str, forms: Forms, answer: Any, where: Where = Where()) -> Form:
    """One form of `answer`, from its workload's `forms`; a format it has none of is the caller's to refuse first."""
    build = by_name(forms).get(_name(fmt))
    assert build is not None, f"no {fmt} form among {formats_for(forms)}"
    return build(answer, where)
