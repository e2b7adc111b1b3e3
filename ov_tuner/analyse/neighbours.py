"""What each of K copies of a configuration gets side by side, against one copy alone: FPS and p90 latency ratios
paired by pass, with intervals, and the copies' FPS together against one alone's. Figures only."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ov_tuner.schema import NeighbourPhase
from ov_tuner.stats.headtohead import Ratio, paired_ratio


@dataclass(frozen=True)
class CopyShare:
    """One copy side by side with the others: its mean FPS and p90 over the passes, and each over one copy
    alone's, paired by pass."""

    copy: int
    fps: float
    p90_ms: float
    fps_ratio: Ratio
    p90_ratio: Ratio


@dataclass(frozen=True)
class Neighbours:
    copies: int
    passes: int
    alone_fps: float
    alone_p90_ms: float
    each: tuple[CopyShare, ...]
    total_fps: float  # every copy's FPS together, summed (the mean over the passes)
    total: Ratio  # every copy's FPS together over one copy's alone: above 1, co-locating adds throughput


def neighbours(phases: list[NeighbourPhase]) -> Neighbours:
    """The figures of interleaved passes of one copy alone and K together."""
    alone = [p for p in phases if not p.together]
    together = [p for p in phases if p.together]
    a_fps = np.array([p.fps[0] for p in alone])
    a_p90 = np.array([p.p90_ms[0] for p in alone])
    t_fps = np.array([p.fps for p in together])
    t_p90 = np.array([p.p90_ms for p in together])
    each = tuple(CopyShare(i, float(t_fps[:, i].mean()), float(t_p90[:, i].mean()),
                           paired_ratio(t_fps[:, i], a_fps), paired_ratio(t_p90[:, i], a_p90))
                 for i in range(t_fps.shape[1]))
    return Neighbours(copies=t_fps.shape[1], passes=len(alone), alone_fps=float(a_fps.mean()),
                      alone_p90_ms=float(a_p90.mean()), each=each, total_fps=float(t_fps.sum(axis=1).mean()),
                      total=paired_ratio(t_fps.sum(axis=1), a_fps))
