"""Reports: one self-contained HTML file (images embedded) and a Markdown page, both the same document `show` prints,
each workload's own (its registration's `report` writes them through write_pages)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ov_tuner.present.document import Section
from ov_tuner.present.pages import to_html, to_markdown


@dataclass(frozen=True)
class ReportFiles:
    html: Path
    markdown: Path
    images: list[Path]


def write_pages(title: str, sections: list[Section], out_dir: Path, images: list[Path]) -> ReportFiles:
    html_path, md_path = out_dir / "report.html", out_dir / "report.md"
    html_path.write_text(to_html(title, sections), encoding="utf-8")
    md_path.write_text(to_markdown(title, sections, out_dir), encoding="utf-8")
    return ReportFiles(html_path, md_path, images)
