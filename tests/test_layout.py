"""The answer, the findings and the figures' data are computed once, in ov_tuner.analyse, and only rendered above it:
no module that renders (ov_tuner.present, and each workload's words, figures and forms beside its registration in
ov_tuner.registry) calls (or hands on) a function of ov_tuner.analyse, only the records it builds, their types and
constants; and none opens a model (OpenVINO, or the runtime over it). And the
command line starts light: building it (all --help needs) imports no OpenVINO, numpy, sweep engine, NNCF or
matplotlib; a command imports them when it runs. And below the command line, no raised message names a flag: it
names the input (ov_tuner.errors.Input), and ov_tuner/commandline/inputs.py says which flag gives it. And no call in
ov_tuner passes seven or more arguments by position."""

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
WORKLOADS = PACKAGE / "workloads"
# What renders: present/, and what each built-in workload hands it, in its folder's present/ (workloads/NAME/present/).
# The command line: what every command shares, the commands of results files, the fleet and the host, and each built-in
# workload's commands in its folder.
COMMANDS = sorted([*(PACKAGE / "cli").glob("*.py"), *(PACKAGE / "commandline").glob("*.py"),
                   *WORKLOADS.glob("*/command.py"), *WORKLOADS.glob("*/commands/*.py")])
RENDERING = sorted([*PRESENT.rglob("*.py"), *WORKLOADS.glob("*/present/**/*.py")])
# What opens a model: nothing in ov_tuner.present may import these.
MODEL_OPENERS = ("openvino", "ov_tuner.devices.runtime")
# What --help goes without: each takes a tenth of a second or more to import on a small host.
HEAVY = ("openvino", "numpy", "ov_tuner.workloads.sweep.job", "nncf", "matplotlib")


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


def imported_names(tree: ast.Module) -> dict[str, str]:
    """Each name a file's imports bind, with the dotted name it stands for: `from m import n as a` binds a to m.n,
    `import a.b` binds a, `import a.b as c` binds c to a.b."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            bound.update({alias.asname or alias.name: f"{node.module}.{alias.name}" for alias in node.names})
        elif isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                bound[name] = alias.name if alias.asname else name
    return bound


def dotted_name(node: ast.expr, bound: dict[str, str]) -> str | None:
    """The dotted name an expression such as `capacity.latest_served` reads, through the names imported."""
    attributes = []
    while isinstance(node, ast.Attribute):
        attributes.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in bound:
        return None
    return ".".join([bound[node.id], *reversed(attributes)])


def named(dotted: str) -> object:
    """What a dotted name stands for: its longest importable module, then attributes of it (None where one is not)."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for part in parts[i:]:
            found = getattr(found, part, None)
        return found
    return None


# Where answers are computed: present/ may import their records and constants, never call their functions (an
# interval, a verdict on a compile's read-back, a walk's figure).
COMPUTING = ("ov_tuner.analyse.", "ov_tuner.workloads.", "ov_tuner.stats.", "ov_tuner.engine.",
             "ov_tuner.devices.decisions.")
# What renders in a workload's folder (its present/), and where a file lies (a naming rule, as quantize/paths is): a
# call into either computes nothing.
RENDERED_IN_A_WORKLOAD = re.compile(r"ov_tuner\.workloads\.(\w+\.present|llm\.folders)\.")


def analyse_functions_used(path: Path) -> list[str]:
    """`line: name` for each function of ov_tuner.analyse or a workload's folder (its answer is built there) a file
    calls or hands on (`key=fastest`): a record's class, an enum member or a constant imported from there is no
    function, so it passes."""
    tree = ast.parse(path.read_text())
    bound = imported_names(tree)
    found = [(node.lineno, dotted) for node in ast.walk(tree)
             if isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Load)
             and (dotted := dotted_name(node, bound)) is not None and dotted.startswith(COMPUTING)
             and not RENDERED_IN_A_WORKLOAD.match(dotted)
             and inspect.isfunction(named(dotted))]
    return [f"{line}: {dotted}" for line, dotted in sorted(found)]


def test_present_computes_nothing() -> None:
    """Data flows model -> compile -> measure -> store -> analyse -> present: the command line builds the records
    through ov_tuner.analyse and hands them to ov_tuner.present, which words and draws them."""
    assert WORKLOADS / "llm/present/words.py" in RENDERING and WORKLOADS / "llm/registration.py" not in RENDERING
    assert WORKLOADS / "sweep/present/words/answer.py" in RENDERING
    used = [f"{path.relative_to(PACKAGE)}:{hit}" for path in RENDERING for hit in analyse_functions_used(path)]
    assert used == []


def test_the_check_sees_an_analysis_function_called_or_handed_on(tmp_path: Path) -> None:
    """The rule above fails on a function of ov_tuner.analyse however it is imported, and lets records, enum members
    and constants through."""
    module = tmp_path / "computes.py"
    module.write_text("from ov_tuner.analyse.drift import DRIFT_MIN, Drift, drift\n"
                      "from ov_tuner.analyse import capacity\n"
                      "import ov_tuner.analyse.points as points\n"
                      "import ov_tuner.analyse.heatmaps\n"
                      "found = drift(windows)\n"
                      "kept = Drift, DRIFT_MIN, ov_tuner.analyse.heatmaps.Metric.FPS, found.soak.config.label()\n"
                      "served = capacity.latest_served(runs)\n"
                      "best = max(measured, key=points.fastest)\n"
                      "grid = ov_tuner.analyse.heatmaps.heatmap_of(measured)\n"
                      "from ov_tuner.workloads.pipeline.answer import pipeline_answer\n"
                      "answer = pipeline_answer(stored)\n")
    assert analyse_functions_used(module) == [
        "5: ov_tuner.analyse.drift.drift", "7: ov_tuner.analyse.capacity.latest_served",
        "8: ov_tuner.analyse.points.fastest", "9: ov_tuner.analyse.heatmaps.heatmap_of",
        "11: ov_tuner.workloads.pipeline.answer.pipeline_answer"]


# The comparisons present/ makes that decide nothing a reader is told: how a figure is drawn and a line is wrapped.
DRAWING = {
    "workloads/sweep/present/heatmaps.py: 0.299 * r + 0.587 * g + 0.114 * b < 0.5",  # dark text on a light cell
    # the budget line
    "workloads/llm/present/figures.py: limit <= BUDGET_REACH * max([x for x, _ in at.values()] + [0.001])",
    "present/words/box.py: cpu == runs[-1][-1] + 1",  # runs of CPU numbers: 0-3
    # a figure's index
    "workloads/sweep/present/documents.py: i < len(figures.profiles)",
    "workloads/sweep/present/documents.py: i < len(figures.soaks)",
    "present/formats.py: point.nireq < point.streams",  # benchmark_app's -nireq flag is written only where it differs
    "present/words/box.py: len(box.cpuset) < box.host_cpus",  # a box names its CPUs where it has fewer than the host
    "workloads/llm/present/words_outputs.py: len(asked) <= ASKED_CHARS",  # a prompt quoted whole or cut
    "workloads/sweep/present/words/edge.py: a < b",  # a clock's span
    "present/words/numbers.py: load > found.served",  # the loads at a walk's edge, as the walk stored them
    "workloads/pipeline/present/words.py: gain.high > gain.low",  # an interval, or one value in every pass
    # counts and digits: a plural, a list cut short, how many digits a figure takes
    "workloads/sweep/present/heatmaps.py: value >= 100", "present/words/numbers.py: cosine > 0.99999",
    "present/words/numbers.py: n > 1", "present/words/box.py: len(r) > 1",
    "workloads/llm/present/words.py: answer.passes > 1", "workloads/llm/present/words_report.py: answer.passes > 1",
    "workloads/llm/present/servers.py: setting.instances > 1",
    "workloads/llm/present/words_setting.py: setting.instances > 1",
    "workloads/llm/present/words.py: len(reasons) > 2", "workloads/pipeline/present/words.py: len(failed) > 2",
    # whether there is something to draw: two windows make a line, two boxes a column
    "workloads/sweep/present/documents.py: len(s.soak.windows) >= 2",
    "workloads/sweep/present/figures.py: len(soak.soak.windows) >= 2",
    "workloads/sweep/present/documents.py: "
    "len({f.environment.box.bounds if f.environment.box else None for f in comparison.files}) > 1",
}


def decisions_made(path: Path, root: Path = PACKAGE) -> list[str]:
    """`file: code` for each leader a file picks (max or min by a key) and each threshold it compares a figure
    with (an ordering between two figures, a figure computed then compared, or a figure against a number written in
    the code), outside DRAWING."""
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        picks = (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("max", "min")
                 and any(k.arg == "key" for k in node.keywords))
        operands = [node.left, *node.comparators] if isinstance(node, ast.Compare) else []
        computed = any(isinstance(x, ast.BinOp) for x in operands)
        ordering = isinstance(node, ast.Compare) and any(isinstance(op, ast.Lt | ast.Gt | ast.LtE | ast.GtE)
                                                          for op in node.ops)
        literal = [x for x in operands if isinstance(x, ast.Constant)
                   or (isinstance(x, ast.UnaryOp) and isinstance(x.operand, ast.Constant))]
        ordered = ordering and len(operands) - len(literal) >= 2
        # a figure against a number written in the code (a sign, against 0, decides nothing)
        threshold = ordering and 0 < len(literal) < len(operands) and any(ast.literal_eval(x) != 0 for x in literal)
        if picks or computed or ordered or threshold:
            found.append(f"{path.relative_to(root)}: {ast.unparse(node)}")
    return [hit for hit in found if hit not in DRAWING]


def test_present_picks_no_leader_and_judges_no_threshold() -> None:
    """A leader, a load met or missed, a device's limit reached: each is a field or a property of the record
    analysis built, which present/ words and draws."""
    assert [hit for path in RENDERING for hit in decisions_made(path)] == []


def test_the_decision_check_sees_the_cases_present_once_decided(tmp_path: Path) -> None:
    """What present/ once decided itself: the head-to-head leader, a walk's load met by a majority of its windows,
    a point at the device's most streams."""
    module = tmp_path / "decides.py"
    module.write_text("leader = max(head.figures, key=lambda f: f.fps)\n"
                      "hits = [load for load, n, met in loads if 2 * met > n]\n"
                      "if s.top_streams is not None and point.streams >= s.top_streams:\n    pass\n"
                      "shown = f'{ratio.value:.2f}' if ratio.value > 0 else ''\n"
                      "said = 'limited by the harness' if share >= 0.8 else ''\n")
    assert sorted(decisions_made(module, tmp_path)) == [
        "decides.py: 2 * met > n", "decides.py: max(head.figures, key=lambda f: f.fps)",
        "decides.py: point.streams >= s.top_streams", "decides.py: share >= 0.8"]


def test_nothing_in_present_opens_a_model() -> None:
    """The deploy forms' input shapes come from the answer record (ov_tuner.analyse.inputs reads them)."""
    assert [f"{path.relative_to(PACKAGE)}: {m}" for path in RENDERING for m in opens_models(path)] == []


def test_the_model_check_sees_openvino_and_the_runtime(tmp_path: Path) -> None:
    module = tmp_path / "opens.py"
    module.write_text("import openvino as ov\nfrom ov_tuner.devices.runtime import Runtime\nfrom ov_tuner.devices "
                      "import runtime\nx = 'import openvino'\n")
    assert opens_models(module) == ["openvino", "ov_tuner.devices.runtime", "ov_tuner.devices.runtime.Runtime",
                                    "ov_tuner.devices.runtime"]


def heavy_imports(statement: str, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    """The modules of `heavy` (or inside them) that a fresh interpreter has imported after `statement`."""
    done = subprocess.run([sys.executable, "-c", f"import sys\n{statement}\nprint(*sys.modules)"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return sorted(m for m in done.stdout.split() if any(m == h or m.startswith(f"{h}.") for h in heavy))


def test_building_the_command_line_imports_nothing_heavy() -> None:
    """What `ov-tuner --help` does: import the commands and build every one's options."""
    assert heavy_imports("import typer.main\nfrom ov_tuner.cli import app\ntyper.main.get_command(app)") == []


def test_the_probe_sees_the_engine_imported() -> None:
    """The check above fails where the command line imports the sweep engine (which imports OpenVINO and numpy)."""
    found = heavy_imports("import ov_tuner.workloads.sweep.job")
    assert {"openvino", "numpy", "ov_tuner.workloads.sweep.job"} <= set(found)


def test_show_reads_the_results_file_alone(swept_db: Path) -> None:
    """`show` prints what the file holds: it loads neither OpenVINO nor OpenCV, though the model it names is here to
    read (`recommend` reads it again for the input shapes of its deploy forms)."""
    show = ("from typer.testing import CliRunner\nfrom ov_tuner.cli import app\n"
            f"done = CliRunner().invoke(app, ['show', {str(swept_db)!r}])\nassert done.exit_code == 0, done.output")
    assert heavy_imports(show, ("openvino", "cv2")) == []


# A flag of ov-tuner's as a user types it: `--out`, `--max-latency` (not `a--b`, not a `---` rule).
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")
# Where flags may be named: the command line, and the words it prints.
FLAG_FLOORS = ("cli", "commandline", "present")


def flags_raised(path: Path) -> list[str]:
    """`line: literal` for each string literal (an f-string's parts included) in a raise statement that holds a flag."""
    tree = ast.parse(path.read_text())
    found = [(node.lineno, node.col_offset, node.value) for raised in ast.walk(tree)
             if isinstance(raised, ast.Raise) and raised.exc for node in ast.walk(raised.exc)
             if isinstance(node, ast.Constant) and isinstance(node.value, str) and FLAG.search(node.value)]
    return [f"{line}: {text}" for line, _, text in sorted(found)]


def test_no_message_raised_below_the_command_line_names_a_flag() -> None:
    below = [path for path in sorted(PACKAGE.rglob("*.py"))
             if path.relative_to(PACKAGE).parts[0] not in FLAG_FLOORS and path not in COMMANDS]
    assert PACKAGE / "workloads/llm/command.py" in COMMANDS and PACKAGE / "workloads/sweep/commands/edge.py" in COMMANDS
    assert {PACKAGE / "devices/compiler.py", PACKAGE / "devices/runtime.py",
            PACKAGE / "deployable/irs.py"} <= set(below)
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
POSITIONAL_ALLOWED = ("workloads/pipeline/present/forms.py: inference_element",)


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


# A command parses its flags and makes one call: its body (after the docstring) is shorter than this.
MOST_COMMAND_LINES = 40


def long_commands(path: Path) -> list[str]:
    """`name: lines` for each command (a function decorated with `@app.command`) whose body, its docstring left out,
    runs MOST_COMMAND_LINES lines or more."""
    found = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef) and any("command" in ast.unparse(d) for d in node.decorator_list):
            body = node.body[1:] if isinstance(node.body[0], ast.Expr) and len(node.body) > 1 else node.body
            lines = node.end_lineno - body[0].lineno + 1 if node.end_lineno else 0
            found += [f"{node.name}: {lines}"] if lines >= MOST_COMMAND_LINES else []
    return found


def test_every_command_is_its_flags_and_one_call() -> None:
    found = [f"{path.name}: {hit}" for path in COMMANDS for hit in long_commands(path)]
    assert found == []


def test_the_command_check_counts_the_body_without_its_docstring(tmp_path: Path) -> None:
    module = tmp_path / "commands.py"
    body = "\n".join(f"    x = {i}" for i in range(MOST_COMMAND_LINES))
    module.write_text(f'@app.command()\ndef long(\n    a: int,\n) -> None:\n    """Doc."""\n{body}\n\n\n'
                      f'@app.command()\ndef short() -> None:\n    """Doc\n    on two lines."""\n{body[:-10]}\n\n\n'
                      f'def helper() -> None:\n{body}\n')
    assert long_commands(module) == [f"long: {MOST_COMMAND_LINES}"]


def test_every_module_of_a_layered_folder_is_named_in_its_contract() -> None:
    """import-linter checks only the modules a layers contract names: a module left out of it may import anything."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10 has no TOML reader of its own
        import tomli as tomllib

    contracts = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    checked = 0
    for contract in contracts:
        for container in contract.get("containers", []):
            folder = PACKAGE.parent / container.replace(".", "/")
            named = {name.strip() for layer in contract["layers"] for name in layer.split("|")}
            modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
            modules |= {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}
            assert modules <= named, f"{container}: {sorted(modules - named)} in no layer"
            checked += 1
    assert checked >= 3  # the sweep's folder, the LLM's and the pipeline's
