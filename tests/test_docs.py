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
