"""ov-tuner's plug-in API: everything a workload of its own imports from ov_tuner, and nothing else of it.

A workload is a package with one entry point in the `ov_tuner.workloads` group naming its `Registration`
(docs/plugins.md: the parts, a worked example, the rules). This module is the surface that package writes against;
the modules behind it may move between releases, this one keeps its names within an API version:

- API_VERSION "MAJOR.MINOR": a minor release adds names, a major one changes or removes some. A Registration says the
  version it was written against (`api`); ov-tuner loads it where the major versions agree and the plug-in's minor is
  not above its own, and otherwise says in one line which versions differ and leaves that workload out.

The registration and its records are imported at once (the command line imports every workload's registration for
`--help`); the rest (the store, the words, the report, the engine) on first use, so that a registration that imports
this module stays as light as the command line needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ov_tuner.errors import BadInputError, OvTunerError
from ov_tuner.registry.parts import API_VERSION, Asked, Registration
from ov_tuner.store.tables import OwnTables, Writer

if TYPE_CHECKING:
    from ov_tuner.commandline.app import one_line_errors, out
    from ov_tuner.devices.environment import environment
    from ov_tuner.devices.modelfile import open_model_source
    from ov_tuner.engine.budget import PhasePlan, TimeBudget
    from ov_tuner.engine.driver import Rounds, Steps, Watch, Workload, drive
    from ov_tuner.engine.rounds import RoundLimits, run_rounds
    from ov_tuner.present.deploy import Form, Forms, Where
    from ov_tuner.present.deploy_format import DeployFormat
    from ov_tuner.present.document import Facts, Image, Section, table
    from ov_tuner.present.envelope import envelope
    from ov_tuner.present.report import ReportFiles, write_pages
    from ov_tuner.present.terminal import print_sections
    from ov_tuner.stats.interval import Interval, paired_interval, pass_adjusted_means, t_quantile
    from ov_tuner.store.destinations import results_file
    from ov_tuner.store.results import ResultStore

# Each name loaded on first use, and the module that holds it.
_ON_USE = {
    "one_line_errors": "ov_tuner.commandline.app", "out": "ov_tuner.commandline.app",
    "environment": "ov_tuner.devices.environment", "open_model_source": "ov_tuner.devices.modelfile",
    "PhasePlan": "ov_tuner.engine.budget", "TimeBudget": "ov_tuner.engine.budget",
    "Rounds": "ov_tuner.engine.driver", "Steps": "ov_tuner.engine.driver", "Watch": "ov_tuner.engine.driver",
    "Workload": "ov_tuner.engine.driver", "drive": "ov_tuner.engine.driver",
    "RoundLimits": "ov_tuner.engine.rounds", "run_rounds": "ov_tuner.engine.rounds",
    "Form": "ov_tuner.present.deploy", "Forms": "ov_tuner.present.deploy", "Where": "ov_tuner.present.deploy",
    "DeployFormat": "ov_tuner.present.deploy_format",
    "Facts": "ov_tuner.present.document", "Image": "ov_tuner.present.document", "Section": "ov_tuner.present.document",
    "table": "ov_tuner.present.document",
    "envelope": "ov_tuner.present.envelope",
    "ReportFiles": "ov_tuner.present.report", "write_pages": "ov_tuner.present.report",
    "print_sections": "ov_tuner.present.terminal",
    "Interval": "ov_tuner.stats.interval", "paired_interval": "ov_tuner.stats.interval",
    "pass_adjusted_means": "ov_tuner.stats.interval", "t_quantile": "ov_tuner.stats.interval",
    "results_file": "ov_tuner.store.destinations",
    "ResultStore": "ov_tuner.store.results",
}

__all__ = ["API_VERSION", "Asked", "BadInputError", "DeployFormat", "Facts", "Form", "Forms", "Image", "Interval",
           "OvTunerError", "OwnTables", "PhasePlan", "Registration", "ReportFiles", "ResultStore", "RoundLimits",
           "Rounds", "Section", "Steps", "TimeBudget", "Watch", "Where", "Workload", "Writer", "drive", "envelope",
           "environment", "one_line_errors", "open_model_source", "out", "paired_interval", "pass_adjusted_means",
           "print_sections", "results_file", "run_rounds", "t_quantile", "table", "write_pages"]


def __getattr__(name: str) -> object:
    """A name of the API loaded on first use (PEP 562)."""
    module = _ON_USE.get(name)
    if module is None:
        raise AttributeError(f"ov_tuner.plugin has no {name!r}: the plug-in API {API_VERSION} holds "
                             f"{', '.join(__all__)}")
    return getattr(importlib.import_module(module), name)
