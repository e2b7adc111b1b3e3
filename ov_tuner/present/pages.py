"""The document as a page: one self-contained HTML file (images embedded: it opens offline and mails as one file)
and Markdown that links the images beside it, for pasting into documents."""

from __future__ import annotations

import base64
import html
from pathlib import Path

from ov_tuner.present.document import Block, Bullets, Code, Facts, Image, Paragraph, Section, Table

_CSS = """
body { font-family: system-ui, sans-serif; max-width: 1400px; margin: 2em auto; padding: 0 1em; color: #1d1d1f; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; }
td.num { text-align: right; }
table.facts td { border: none; padding: 0.15em 0.8em 0.15em 0; }
table.facts td:first-child { font-weight: 600; color: #1b7f3b; }
th { background: #f2f2f7; }
pre { background: #f6f8fa; padding: 0.8em; overflow-x: auto; }
img { max-width: 100%; display: block; margin: 0.5em 0 1.5em; border: 1px solid #eee; }
h2 { border-bottom: 2px solid #e5e5ea; padding-bottom: 0.2em; margin-top: 1.6em; }
"""


def _html_block(block: Block) -> str:
    if isinstance(block, Paragraph):
        return f"<p>{html.escape(block.text)}</p>"
    if isinstance(block, Facts):
        rows = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>" for k, v in block.rows)
        return f'<table class="facts">{rows}</table>'
    if isinstance(block, Bullets):
        return "<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in block.items) + "</ul>" if block.items else ""
    if isinstance(block, Table):
        caption = f"<caption>{html.escape(block.title)}</caption>" if block.title else ""
        head = "".join(f"<th>{html.escape(h)}</th>" for h in block.header)
        body = "".join("<tr>" + "".join(f'<td{" class=num" if i in block.numeric else ""}>{html.escape(c)}</td>'
                                        for i, c in enumerate(row)) + "</tr>" for row in block.rows)
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if isinstance(block, Code):
        return f"<pre><code>{html.escape(block.text)}</code></pre>"
    assert isinstance(block, Image)
    kind = "svg+xml" if block.path.suffix == ".svg" else "png"
    data = base64.b64encode(block.path.read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(block.alt)}" src="data:image/{kind};base64,{data}">'


def to_html(title: str, sections: list[Section]) -> str:
    body = "".join(f"<h2>{html.escape(s.title)}</h2>" + "".join(_html_block(b) for b in s.blocks) for s in sections)
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>{body}</body></html>\n")


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def _md_block(block: Block, base: Path) -> str:
    if isinstance(block, Paragraph):
        return block.text
    if isinstance(block, Facts):
        return "\n".join(f"- **{label}**: {text}" for label, text in block.rows)
    if isinstance(block, Bullets):
        return "\n".join(f"- {i}" for i in block.items)
    if isinstance(block, Table):
        lines = [f"*{block.title}*", ""] if block.title else []
        lines += ["| " + " | ".join(_md_cell(h) for h in block.header) + " |",
                  "|" + "".join("---:|" if i in block.numeric else "---|" for i in range(len(block.header)))]
        lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows]
        return "\n".join(lines)
    if isinstance(block, Code):
        return f"```{block.language}\n{block.text.rstrip()}\n```"
    assert isinstance(block, Image)
    return f"![{block.alt}]({block.path.relative_to(base)})"


def to_markdown(title: str, sections: list[Section], base: Path) -> str:
    """Markdown with image links relative to `base`, the folder the file is written to."""
    parts = [f"# {title}"]
    for s in sections:
        parts.append(f"## {s.title}")
        parts += [text for text in (_md_block(b, base) for b in s.blocks) if text]
    return "\n\n".join(parts) + "\n"
