"""The answer is computed once, in ov_tuner.analyse, and only rendered above it: the modules of ov_tuner.present that
word the answer import types from ov_tuner.analyse (the records they render), never a function that computes."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import ov_tuner

PRESENT = Path(ov_tuner.__file__).parent / "present"
# Every module that renders the answer record: its rows, its detail, its JSON, its deploy forms, the documents.
ANSWER_MODULES = ("sections/answer.py", "words/short.py", "words/answer.py", "words/accuracy.py", "answer_json.py",
                  "deploy.py", "formats.py", "documents.py", "report.py", "words/pipeline.py", "sections/pipeline.py",
                  "pipeline_forms.py", "pipeline_figures.py")
# What builds the answer: nothing in ov_tuner.present may call these.
ANSWER_BUILDERS = ("ov_tuner.analyse.answer", "ov_tuner.analyse.recommend", "ov_tuner.analyse.caveat")


def analyse_imports(path: Path) -> list[tuple[str, str]]:
    """(module, name) for every `from ov_tuner.analyse... import name` in a file."""
    tree = ast.parse(path.read_text())
    return [(node.module, alias.name) for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ov_tuner.analyse")
            for alias in node.names]


def computing(module: str, name: str) -> bool:
    """A function, not a type or a constant."""
    return inspect.isfunction(getattr(importlib.import_module(module), name))


def test_the_answer_is_rendered_from_its_record_and_computed_nowhere_in_present() -> None:
    assert all((PRESENT / m).is_file() for m in ANSWER_MODULES)
    called = [f"{m}: {module}.{name}" for m in ANSWER_MODULES for module, name in analyse_imports(PRESENT / m)
              if computing(module, name)]
    assert called == []
    builders = [f"{path.relative_to(PRESENT)}: {module}.{name}" for path in PRESENT.rglob("*.py")
                for module, name in analyse_imports(path) if module in ANSWER_BUILDERS and computing(module, name)]
    assert builders == []


def test_the_check_sees_a_function_imported() -> None:
    """The rule above fails where a module imports a computing function (here, one of present/plots.py's)."""
    found = [(module, name) for module, name in analyse_imports(PRESENT / "plots.py") if computing(module, name)]
    assert ("ov_tuner.analyse.accuracy", "accuracy_of") in found
