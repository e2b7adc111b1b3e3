"""The plug-in surface as figures: which modules of ov_tuner outside a workload's folder import one, which core modules
name a workload in their code, what of ov_tuner the plug-ins in tests/ and docs/plugins.md import, and the longest
modules and functions. Read from the source alone
(nothing imported or run); run by hand before and after a change to the plug-in API.

    .venv/bin/python scripts/plugin_surface.py
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ov_tuner"
WORKLOADS = ("sweep", "pipeline", "llm")
# A workload's folders: its measurement and its registration (one folder since 0.3.0; both kept for a count before).
FOLDERS = {name: (f"ov_tuner.workloads.{name}", f"ov_tuner.registry.{name}") for name in WORKLOADS}
# The sweep's parts, in a folder of their own before 0.3.0.
PARTS = ("capacity", "coldstart", "neighbours", "profile", "soak")
# A workload named in code: a string or a name that says sweep, pipeline or llm (docstrings and comments aside).
NAMED = re.compile(r"(?<![a-z])(sweep|pipeline|llm)s?(?![a-z])", re.IGNORECASE)
FILE_BLOCK = re.compile(r"```python\n# file: (\S+)\n(.*?)```", re.DOTALL)


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.AST, known: set[str]) -> set[str]:
    """The modules of ov_tuner (of `known`) a module imports: for `from X import Y`, X.Y where that is a module, else
    X."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in known else node.module
                      for a in node.names}
    return found & known


def within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def names_a_workload(tree: ast.Module) -> list[str]:
    """The strings and names of a module's code that name a workload, its docstrings aside."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value
        elif isinstance(node, ast.Name | ast.Attribute):
            text = (node.id if isinstance(node, ast.Name) else node.attr).replace("_", " ")
        else:
            continue
        if NAMED.search(text):
            found.append(text)
    return found


def main() -> None:
    sources = {module_name(p): ast.parse(p.read_text(encoding="utf-8")) for p in PACKAGE.rglob("*.py")}
    known = set(sources)
    print("modules outside a workload's folders that import it:")
    for name, folders in FOLDERS.items():
        users = sorted(m for m, tree in sources.items()
                       if not within(m, folders) and any(within(i, folders) for i in imported(tree, known)))
        print(f"  {name}: {len(users)}: {', '.join(users)}")
    workload_code = tuple(p for folders in FOLDERS.values() for p in folders) + tuple(
        f"ov_tuner.workloads.{part}" for part in PARTS) + ("ov_tuner.workloads",)
    naming = sorted(m for m, tree in sources.items()
                    if not within(m, workload_code) and names_a_workload(tree))
    print(f"core modules whose code names a workload: {len(naming)}: {', '.join(naming)}")
    plugins = {"the probe (tests/plugin_workload)": list((ROOT / "tests" / "plugin_workload").rglob("*.py"))}
    page = ROOT / "docs" / "plugins.md"
    if page.is_file():
        plugins["the page's (docs/plugins.md)"] = [body for _, body in FILE_BLOCK.findall(page.read_text("utf-8"))]
    for label, files in plugins.items():
        found: set[str] = set()
        for f in files:
            found |= imported(ast.parse(f.read_text(encoding="utf-8") if isinstance(f, Path) else f), known)
        modules = sorted(found)
        packages = sorted({m.split(".")[1] for m in modules if "." in m})
        print(f"{label} imports {len(modules)} module(s) of ov_tuner from {len(packages)} package(s): "
              f"{', '.join(modules)}")
    lengths = sorted(((len(p.read_text(encoding='utf-8').splitlines()), module_name(p))
                      for p in PACKAGE.rglob("*.py")), reverse=True)[:5]
    print("longest modules: " + ", ".join(f"{m} {n}" for n, m in lengths))
    functions = []
    for m, tree in sources.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
                functions.append((node.end_lineno - node.lineno + 1, len(node.args.args) + len(node.args.kwonlyargs),
                                  f"{m}:{node.name}"))
    functions.sort(reverse=True)
    print("longest functions: " + ", ".join(f"{name} {lines} lines, {args} parameters"
                                            for lines, args, name in functions[:5]))


if __name__ == "__main__":
    main()
