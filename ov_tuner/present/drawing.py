"""What every workload's figures share: the colour that marks what the answer deploys, the marker of OpenVINO (or the
runtime) left alone, and how a figure is written to a file."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

DEPLOYED_COLOUR = "#ff2d55"
DEFAULT_MARKER = {"marker": "D", "markersize": 9, "markerfacecolor": "white", "markeredgecolor": "black",
                  "markeredgewidth": 1.5, "linestyle": ""}


def save_figure(fig: Figure, out_dir: Path, name: str, fmt: str = "png") -> Path:
    """Write a figure as png, svg or pdf (for reports and documents). The tight bounding box takes in every drawn
    artist, so no title or label of any figure kind is cut off at the file's edge."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.{fmt}"
    fig.savefig(path, dpi=110, bbox_inches="tight", pad_inches=0.1)
    return path
