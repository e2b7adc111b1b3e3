"""The README stays a five-minute read, and every link in it and in docs/ leads somewhere, anchor included."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ov_tuner.cli import app

ROOT = Path(__file__).parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)")


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(), flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


# Where the history of the tool and the measurements of it live: the other pages describe it as it is now.
HISTORY = ("benchmarks.md", "CHANGELOG.md")
COMMIT = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")
RESULTS_VERSION = re.compile(r"\b(?:schema|results files?|written before|from|until|before) v\d+\b|\(v\d+\b",
                             re.IGNORECASE)


@pytest.mark.parametrize("page", [p for p in PAGES if p.name not in HISTORY], ids=lambda p: p.name)
def test_a_page_names_no_commit_and_no_results_file_version(page: Path) -> None:
    """A reader looks up what the tool does now; which commit or file version did it first is CHANGELOG.md's."""
    text = page.read_text()
    assert COMMIT.findall(text) == [] and RESULTS_VERSION.findall(text) == []


def test_the_history_check_sees_a_commit_and_a_file_version() -> None:
    said = "the count before v11 (419ef63); results files from v18 keep it; schema v9 (v10 adds it); MobileNet-v2"
    assert COMMIT.findall(said) == ["419ef63"]
    assert [m.lower() for m in RESULTS_VERSION.findall(said)] == ["before v11", "from v18", "schema v9", "(v10"]


def test_readme_is_short() -> None:
    assert len((ROOT / "README.md").read_text().splitlines()) <= 150


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_lead_somewhere(page: Path) -> None:
    for target, anchor in LINK.findall(page.read_text()):
        if target.startswith(("http://", "https://")):
            continue
        linked = (page.parent / target).resolve() if target else page
        assert linked.exists(), f"{page.name} links to {target}, which is not there"
        if anchor and linked.suffix == ".md":
            assert anchor in _anchors(linked), f"{page.name} links to {target}#{anchor}, a heading it lacks"


def test_readme_commands_exist() -> None:
    """Every `ov-tuner COMMAND` the README shows is a command of the CLI."""
    shown = set(re.findall(r"bin/ov-tuner ((?:fleet |zoo )?[a-z]+)", (ROOT / "README.md").read_text()))
    for command in sorted(shown):
        result = CliRunner().invoke(app, [*command.split(), "--help"])
        assert result.exit_code == 0, f"ov-tuner {command}: {result.output}"


def test_the_sweep_flags_table_gives_the_defaults_the_command_has() -> None:
    """docs/usage.md's flag table says each flag's default as `sweep --help` does."""
    import typer

    sweep = typer.main.get_command(app).commands["sweep"]  # type: ignore[attr-defined]
    options = {name: p for p in sweep.params for name in getattr(p, "opts", [])}
    table = (ROOT / "docs" / "usage.md").read_text().split("| flag | meaning | default |")[1].split("\n\n")[0]
    rows = re.findall(r"^\| `(--[a-z0-9-]+)` \| .* \| `([^`]+)` \|$", table, flags=re.MULTILINE)
    compared = [(flag, said) for flag, said in rows if flag in options and options[flag].default is not None]
    assert len(compared) >= 10
    for flag, said in compared:
        default = options[flag].default
        assert said == str(getattr(default, "value", default)), f"usage.md gives {flag} default {said}"
