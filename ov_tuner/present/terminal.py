"""The document in the terminal, with rich: tables as tables, the answer block as labelled lines, images named."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console, Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from ov_tuner.present.document import Block, Bullets, Code, Facts, Image, Paragraph, Section, Table, Tone

STYLES = {Tone.PLAIN: "", Tone.GOOD: "bold green", Tone.WARN: "yellow", Tone.BAD: "red"}


def renderable(block: Block) -> RenderableType:
    """One block as rich draws it."""
    if isinstance(block, Paragraph):
        return Text(block.text, style=STYLES[block.tone])
    if isinstance(block, Facts):
        grid = RichTable.grid(padding=(0, 2))
        grid.add_column(style=STYLES[block.tone], no_wrap=True)
        grid.add_column(overflow="fold")
        for label, text in block.rows:
            grid.add_row(label, Text(text))
        return grid
    if isinstance(block, Bullets):
        return Group(*(Text(f"- {item}", style=STYLES[block.tone]) for item in block.items))
    if isinstance(block, Table):
        drawn = RichTable(title=block.title or None)
        for i, column in enumerate(block.header):
            drawn.add_column(column, justify="right" if i in block.numeric else "left")
        for row in block.rows:
            drawn.add_row(*(Text(cell) for cell in row))
        return drawn
    if isinstance(block, Code):
        return Group(Text(block.text.rstrip("\n")), Text(""))  # a blank line sets it off from what follows
    assert isinstance(block, Image)
    return Text(f"figure: {block.path}", style="dim")


def print_sections(console: Console, sections: Iterable[Section], titles: bool = True) -> None:
    """Each section's title (unless `titles` is off), after a blank line but for the first, and blocks, in order."""
    for i, section in enumerate(sections):
        if titles and section.title:
            if i:
                console.print()
            console.print(Text(section.title, style="bold underline"))
        for block in section.blocks:
            console.print(renderable(block), highlight=False)


def print_blocks(console: Console, *blocks: Block) -> None:
    """Blocks outside any section: a command's own table."""
    for block in blocks:
        console.print(renderable(block), highlight=False)
