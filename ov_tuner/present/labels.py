"""Names beside a figure's points that never lie over one another: each is tried at a few places around its point,
then further up and down, and kept at the first whose box overlaps no name placed before it (a line leads back to
the point where it had to move away). Settings measured alike sit on the same spot, and their names did overlap."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Annotation
from matplotlib.transforms import Bbox

# Where a name is tried first, in points from its point: right and left of it, just above and just below.
NEAR = ((9, 4), (9, -11), (-9, 4), (-9, -11))
# Then further up and down, a line of text at a time, with a leader line back to the point.
STEP, FARTHEST = 12, 40
# Marks the names this module placed, so that a figure's later axes avoid them too and a test can find them.
PLACED = "ov-tuner-point-name"


@dataclass(frozen=True)
class PointName:
    """A point's name and how it is written."""

    xy: tuple[float, float]
    text: str
    fontsize: float = 8
    color: str = "black"


def name_points(fig: Figure, ax: Axes, names: Sequence[PointName]) -> list[Annotation]:
    """Write each of `names` beside its point on `ax`, none over another (nor over those already on the figure's
    other axes that this placed); returns them, in the order given (the first placed nearest)."""
    renderer = (fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)).get_renderer()
    fig.draw_without_rendering()  # the layout first: the axes where they will be drawn
    taken: list[Bbox] = [a.get_window_extent(renderer) for a in _placed(fig)]
    placed = []
    for name in names:
        for dx, dy in _offsets():
            label = ax.annotate(name.text, name.xy, textcoords="offset points", xytext=(dx, dy), fontsize=name.fontsize,
                                color=name.color, ha="left" if dx > 0 else "right", va="bottom",
                                arrowprops=None if (dx, dy) in NEAR else {"arrowstyle": "-", "color": "#999999",
                                                                          "linewidth": 0.6})
            label.set_in_layout(False)
            label.set_gid(PLACED)
            box = label.get_window_extent(renderer)
            if not any(box.overlaps(other) for other in taken):
                break
            label.remove()
        else:  # every place taken (hundreds of names): the farthest, overlapping as little as it can
            label = ax.annotate(name.text, name.xy, textcoords="offset points", xytext=(9, STEP * FARTHEST),
                                fontsize=name.fontsize, color=name.color)
            label.set_gid(PLACED)
        taken.append(label.get_window_extent(renderer))
        placed.append(label)
    return placed


def placed_names(fig: Figure) -> list[Annotation]:
    """The names name_points placed on any of the figure's axes."""
    return list(_placed(fig))


def _placed(fig: Figure) -> list[Annotation]:
    return [t for ax in fig.axes for t in ax.texts if isinstance(t, Annotation) and t.get_gid() == PLACED]


def _offsets() -> list[tuple[int, int]]:
    further = [(9, sign * STEP * k) for k in range(2, FARTHEST) for sign in (1, -1)]
    return [*NEAR, *further]
