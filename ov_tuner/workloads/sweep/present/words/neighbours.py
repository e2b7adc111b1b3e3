"""Words for neighbours: what each copy of a configuration gets beside the others, against one copy alone."""

from __future__ import annotations

from ov_tuner.analyse.neighbours import Neighbours
from ov_tuner.present.words.numbers import factor


def neighbours_lines(n: Neighbours, configuration: str) -> list[str]:
    """The copies side by side, one line each, then the box's total and what to make of it."""
    lines = [f"{n.copies} copies of {configuration}, side by side in {n.passes} interleaved passes; one copy alone: "
             f"{n.alone_fps:.1f} FPS, p90 {n.alone_p90_ms:.3g} ms"]
    lines += [f"copy {c.copy + 1}: {c.fps:.1f} FPS ({factor(c.fps_ratio)} of alone), p90 {c.p90_ms:.3g} ms "
              f"({factor(c.p90_ratio)} of alone)" for c in n.each]
    lines.append(f"all {n.copies} together: {n.total_fps:.1f} FPS, {factor(n.total)} of one copy alone")
    lines.append("this configuration was chosen for the model alone: beside neighbours another may serve better "
                 "(fewer threads each, --threads), so measure the one you will deploy")
    return lines
