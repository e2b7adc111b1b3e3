"""The answer is computed once, in ov_tuner.analyse, and only rendered above it: the modules of ov_tuner.present that
word the answer and the findings beside it import types from ov_tuner.analyse (the records they render), never a
function that computes, and nothing in ov_tuner.present opens a model (OpenVINO, or the runtime over it). And the
command line starts light: building it (all --help needs) imports no OpenVINO, numpy, sweep engine, NNCF or
matplotlib; a command imports them when it runs. And below the command line, no raised message names a flag: it
names the input (ov_tuner.errors.Input), and ov_tuner/cli/inputs.py says which flag gives it. And no call in ov_tuner
passes seven or more arguments by position."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import ov_tuner

PACKAGE = Path(ov_tuner.__file__).parent
PRESENT = PACKAGE / "present"
# Every module that renders the answer record or the findings: its rows, its detail, its JSON and their envelope, its
# deploy forms and the servers' files, the findings' blocks and tables, the jobs' tables, the documents.
ANSWER_MODULES = ("sections/answer.py", "words/short.py", "words/answer.py", "words/accuracy.py", "answer_json.py",
                  "envelope.py", "deploy.py", "formats.py", "servers.py", "box_forms.py", "documents.py", "report.py",
                  "words/pipeline.py", "sections/pipeline.py", "pipeline_forms.py", "pipeline_figures.py",
                  "sections/findings.py", "sections/tables.py", "sections/jobs.py")
# What builds the answer: nothing in ov_tuner.present may call these.
ANSWER_BUILDERS = ("ov_tuner.analyse.answer", "ov_tuner.analyse.recommend", "ov_tuner.analyse.caveat",
                   "ov_tuner.analyse.findings", "ov_tuner.analyse.inputs", "ov_tuner.analyse.baselines",
                   "ov_tuner.analyse.devices")
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


# A flag of ov-tuner's as a user types it: `--out`, `--max-latency` (not `a--b`, not a `---` rule).
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")
# Where flags may be named: the command line, and the words it prints.
FLAG_FLOORS = ("cli", "present")


def flags_raised(path: Path) -> list[str]:
    """`line: literal` for each string literal (an f-string's parts included) in a raise statement that holds a flag."""
    tree = ast.parse(path.read_text())
    found = [(node.lineno, node.col_offset, node.value) for raised in ast.walk(tree)
             if isinstance(raised, ast.Raise) and raised.exc for node in ast.walk(raised.exc)
             if isinstance(node, ast.Constant) and isinstance(node.value, str) and FLAG.search(node.value)]
    return [f"{line}: {text}" for line, _, text in sorted(found)]


def test_no_message_raised_below_the_command_line_names_a_flag() -> None:
    below = [path for path in sorted(PACKAGE.rglob("*.py")) if path.relative_to(PACKAGE).parts[0] not in FLAG_FLOORS]
    assert {PACKAGE / "devices/compiler.py", PACKAGE / "devices/runtime.py", PACKAGE / "jobs/irs.py"} <= set(below)
    found = [f"{path.relative_to(PACKAGE)}:{hit}" for path in below for hit in flags_raised(path)]
    assert found == []


def test_the_flag_check_sees_a_flag_in_a_raise(tmp_path: Path) -> None:
    """The rule above fails on a flag in a plain or an f-string message, and leaves one outside a raise alone."""
    module = tmp_path / "raises.py"
    module.write_text('def f(p):\n    words = ["--images", p]\n    if p:\n        raise ValueError("pick another --out '
                      'path")\n    raise ValueError(f"{p}: sweep with --batch 1; a--b ---")\n')
    assert flags_raised(module) == ["4: pick another --out path", "5: : sweep with --batch 1; a--b ---"]


# A call with more positional arguments than this passes them by keyword: seven figures in a row can swap unseen.
MOST_POSITIONAL = 6
# Where Python allows no keyword: present/servers.inference_element's `*options` take what follows its own arguments.
POSITIONAL_ALLOWED = ("present/pipeline_forms.py: inference_element",)


def positional_calls(path: Path) -> list[str]:
    """`function` for each call in a file that passes more than MOST_POSITIONAL positional arguments."""
    tree = ast.parse(path.read_text())
    return [ast.unparse(node.func) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and len(node.args) > MOST_POSITIONAL]


def test_no_call_passes_seven_positional_arguments() -> None:
    found = [f"{path.relative_to(PACKAGE).as_posix()}: {call}" for path in sorted(PACKAGE.rglob("*.py"))
             for call in positional_calls(path)]
    assert found == list(POSITIONAL_ALLOWED)


def test_the_call_check_counts_positional_arguments_only(tmp_path: Path) -> None:
    module = tmp_path / "calls.py"
    module.write_text("f(1, 2, 3, 4, 5, 6, 7)\ng(1, 2, 3, 4, 5, 6, seven=7)\nh(1, 2, 3, 4, 5, 6, *more)\n")
    assert positional_calls(module) == ["f", "h"]
