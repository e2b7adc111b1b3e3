"""The legend entries of the marks every figure draws: the configuration to deploy (the answer's, never the fastest
unless it is the answer), the fastest cell measured, and OpenVINO default, named where they fall off a panel."""

from __future__ import annotations

from ov_tuner.analyse.heatmaps import Placed
from ov_tuner.schema import PointResult, cell_text

NO_ANSWER = "nothing to deploy: no configuration meets the answer's limits"
ANSWER_SPLIT = "outlined: the answer, the split to deploy"
DEFAULT_SPLIT = "diamond: every model at OpenVINO default"


def deployed_mark_text(placed: Placed | None, one_precision: bool) -> str:
    """'deploy: 2 x 2 (the answer)' in a panel of one device, precision and batch (the glossary's short label; its
    full one where the panel compares two precisions), or where this panel does not hold it, what does: 'deploy: CPU
    fp16 batch 1 2 streams x 2 requests (the answer): not in this panel'."""
    if placed is None:
        return NO_ANSWER
    c = placed.config
    if placed.cell is not None:
        return f"deploy: {cell_text(c.streams, c.nireq) if one_precision else c.label()} (the answer)"
    where = "not measured in the search" if placed.in_panel else "not in this panel"
    return f"deploy: {c.label()} (the answer): {where}"


def fastest_mark_text(streams: int, nireq: int) -> str:
    """The fastest cell is named as such, so that it reads as a measurement and not as the advice."""
    return f"fastest measured: {cell_text(streams, nireq)}"


def default_mark_text(placed: Placed, batch: int) -> str:
    """The glossary's short label of a baseline: 'OpenVINO default (2 x 2, ran fp32)'; off the panel of `batch`,
    where: 'OpenVINO default (2 x 2, ran bf16): not in this panel', '... (4 x 8, ran fp32): outside the streams x
    requests measured'."""
    c = placed.config
    label = f"OpenVINO default ({cell_text(c.streams, c.nireq)}, ran {c.precision.value})"
    if placed.cell is not None:
        return label
    if placed.in_panel:
        return f"{label}: outside the streams x requests measured"
    at = f" at batch {c.batch}" if c.batch != batch else ""
    return f"{label}{at}: not in this panel"


def deployed_point_text(p: PointResult) -> str:
    """The deployed point in a legend over every device, precision and batch: 'deploy (the answer): CPU fp32 batch 1
    2 streams x 2 requests'."""
    return f"deploy (the answer): {p.config.label()}"


def default_point_text(p: PointResult) -> str:
    """'OpenVINO default: CPU batch 1 (2 x 2, ran bf16)'."""
    ran = f", ran {p.compile.ran}" if p.compile is not None else ""
    return f"OpenVINO default: {p.config.scope} batch {p.config.batch} ({cell_text(p.streams, p.nireq)}{ran})"


def split_mark_text(answer: bool, default: bool) -> str:
    """What a pipeline split's bar says besides its cameras: 'the answer', 'OpenVINO default', both, or ''."""
    return ", ".join(w for w, on in (("the answer", answer), ("OpenVINO default", default)) if on)
