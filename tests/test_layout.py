"""The answer is computed once, in ov_tuner.analyse, and only rendered above it: the modules of ov_tuner.present that
word the answer and the findings beside it import types from ov_tuner.analyse (the records they render), never a
function that computes, and nothing in ov_tuner.present opens a model (OpenVINO, or the runtime over it). And the
command line starts light: building it (all --help needs) imports no OpenVINO, numpy, sweep engine, NNCF or
matplotlib; a command imports them when it runs."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import ov_tuner

PRESENT = Path(ov_tuner.__file__).parent / "present"
# Every module that renders the answer record or the findings: its rows, its detail, its JSON and their envelope, its
# deploy forms and the servers' files, the findings' blocks, the documents.
ANSWER_MODULES = ("sections/answer.py", "words/short.py", "words/answer.py", "words/accuracy.py", "answer_json.py",
                  "envelope.py", "deploy.py", "formats.py", "servers.py", "box_forms.py", "documents.py", "report.py",
                  "words/pipeline.py", "sections/pipeline.py", "pipeline_forms.py", "pipeline_figures.py",
                  "sections/findings.py")
# What builds the answer: nothing in ov_tuner.present may call these.
ANSWER_BUILDERS = ("ov_tuner.analyse.answer", "ov_tuner.analyse.recommend", "ov_tuner.analyse.caveat",
                   "ov_tuner.analyse.findings", "ov_tuner.analyse.inputs")
# What opens a model: nothing in ov_tuner.present may import these.
MODEL_OPENERS = ("openvino", "ov_tuner.devices.runtime")
# What --help goes without: each takes a tenth of a second or more to import on a small host.
HEAVY = ("openvino", "numpy", "ov_tuner.sweep.run", "nncf", "matplotlib")


def analyse_imports(path: Path) -> list[tuple[str, str]]:
    """(module, name) for every `from ov_tuner.analyse... import name` in a file."""
    tree = ast.parse(path.read_text())
    return [(node.module, alias.name) for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ov_tuner.analyse")
            for alias in node.names]


def imported_modules(path: Path) -> list[str]:
    """Every module a file imports (`import m`, `from m import n`, and `from p import m` where m is a module)."""
    tree = ast.parse(path.read_text())
    found = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return found


def opens_models(path: Path) -> list[str]:
    return [m for m in imported_modules(path) if any(m == o or m.startswith(f"{o}.") for o in MODEL_OPENERS)]


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


def test_nothing_in_present_opens_a_model() -> None:
    """The deploy forms' input shapes come from the answer record (ov_tuner.analyse.inputs reads them)."""
    assert [f"{path.relative_to(PRESENT)}: {m}" for path in PRESENT.rglob("*.py") for m in opens_models(path)] == []


def test_the_model_check_sees_openvino_and_the_runtime(tmp_path: Path) -> None:
    module = tmp_path / "opens.py"
    module.write_text("import openvino as ov\nfrom ov_tuner.devices.runtime import Runtime\nfrom ov_tuner.devices "
                      "import runtime\nx = 'import openvino'\n")
    assert opens_models(module) == ["openvino", "ov_tuner.devices.runtime", "ov_tuner.devices.runtime.Runtime",
                                    "ov_tuner.devices.runtime"]


def heavy_imports(statement: str) -> list[str]:
    """The modules of HEAVY (or inside them) that a fresh interpreter has imported after `statement`."""
    done = subprocess.run([sys.executable, "-c", f"import sys\n{statement}\nprint(*sys.modules)"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return sorted(m for m in done.stdout.split() if any(m == h or m.startswith(f"{h}.") for h in HEAVY))


def test_building_the_command_line_imports_nothing_heavy() -> None:
    """What `ov-tuner --help` does: import the commands and build every one's options."""
    assert heavy_imports("import typer.main\nfrom ov_tuner.cli import app\ntyper.main.get_command(app)") == []


def test_the_probe_sees_the_engine_imported() -> None:
    """The check above fails where the command line imports the sweep engine (which imports OpenVINO and numpy)."""
    found = heavy_imports("import ov_tuner.sweep.run")
    assert {"openvino", "numpy", "ov_tuner.sweep.run"} <= set(found)
