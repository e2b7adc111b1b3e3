"""A plug-in written from docs/plugins.md alone: the page's file blocks written to a folder outside the tree,
installed as pip installs a package, and run through ov-tuner's command line; and the rule both plug-ins keep, that
they import ov-tuner through its plug-in API alone."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from factories import assert_one_line, ov_tuner

from ov_tuner.plugin import API_VERSION

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "plugins.md"
PROBE = Path(__file__).resolve().parent / "plugin_workload"
# A fenced block whose first line names the file it is: "# file: ovt_cache/measure.py".
FILE_BLOCK = re.compile(r"```(?:python|toml)\n# file: (\S+)\n(.*?)```", re.DOTALL)


def page_files() -> dict[str, str]:
    return {name: body for name, body in FILE_BLOCK.findall(PAGE.read_text(encoding="utf-8"))}


def ov_tuner_imports(package: Path) -> set[str]:
    """Every module of ov_tuner the package's Python files import."""
    found = set()
    for source in package.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.split(".")[0] == "ov_tuner"}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "ov_tuner":
                found |= {f"{node.module}.{a.name}" if node.module == "ov_tuner" else str(node.module)
                          for a in node.names}
    return found


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], Path]:
    """The page's plug-in written out and installed into a folder of its own; its environment and its source."""
    folder = tmp_path_factory.mktemp("from-the-docs")
    source, target = folder / "ovt-cache", folder / "site"
    for name, body in page_files().items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(body, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                           "--no-build-isolation", "--target", str(target), str(source)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return {"PYTHONPATH": str(target)}, source


def test_the_page_holds_a_whole_plug_in_that_imports_only_the_api(installed: tuple[dict[str, str], Path]) -> None:
    _, source = installed
    assert set(page_files()) == {"pyproject.toml", "ovt_cache/__init__.py", "ovt_cache/measure.py",
                                 "ovt_cache/command.py", "ovt_cache/registration.py"}
    assert ov_tuner_imports(source) == {"ov_tuner.plugin"}
    assert f'api="{API_VERSION}"' in page_files()["ovt_cache/registration.py"]


def test_the_probe_imports_only_the_api() -> None:
    assert ov_tuner_imports(PROBE) <= {"ov_tuner.plugin"}


def test_the_plug_in_from_the_page_runs_end_to_end(installed: tuple[dict[str, str], Path], tiny_model: Path,
                                                  tmp_path: Path) -> None:
    env, _ = installed
    db = tmp_path / "cache.db"
    done = ov_tuner("cache", str(tiny_model), "--out", str(db), "--repeats", "2", env=env)
    assert done.returncode == 0, done.stderr
    shown = ov_tuner("show", str(db), env=env)
    assert shown.returncode == 0 and "from the cache" in shown.stdout and "cold" in shown.stdout
    said = ov_tuner("recommend", str(db), env=env)
    assert said.returncode == 0 and "saves" in said.stdout
    report = ov_tuner("report", str(db), "--out-dir", str(tmp_path / "report"), env=env)
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "report" / "report.html").is_file() and (tmp_path / "report" / "cache.png").is_file()
    # an input given as --out is refused, not overwritten
    refused = ov_tuner("cache", str(tiny_model), "--out", str(tiny_model), env=env)
    assert refused.returncode != 0 and tiny_model.is_file()
    # a results file that is not there names every installed workload's command, the plug-in's among them
    missing = tmp_path / "missing.db"
    assert_one_line(ov_tuner("show", str(missing), env=env), "does not exist", f"`ov-tuner cache ... --out {missing}`",
                    "`ov-tuner sweep")


def test_a_plug_in_for_another_major_version_is_one_line_and_left_out(installed: tuple[dict[str, str], Path],
                                                                       tmp_path: Path) -> None:
    _, source = installed
    newer = tmp_path / "newer"
    shutil.copytree(source, newer / "source")
    registration = newer / "source" / "ovt_cache" / "registration.py"
    major = int(API_VERSION.split(".")[0])
    registration.write_text(registration.read_text().replace(f'api="{API_VERSION}"', f'api="{major + 1}.0"'))
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                           "--no-build-isolation", "--target", str(newer / "site"), str(newer / "source")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    helped = ov_tuner("--help", env={"PYTHONPATH": str(newer / "site")})
    assert helped.returncode == 0 and " cache " not in helped.stdout
    warned = [line for line in helped.stderr.splitlines() if "cache" in line]
    assert len(warned) == 1 and f"{major + 1}.0" in warned[0] and API_VERSION in warned[0]
