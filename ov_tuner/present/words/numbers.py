"""How numbers read: ratios with their intervals, latencies, cosine similarities, lists of names, a walk's edge."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a type alone: the command line imports these words without numpy
    from ov_tuner.engine.boundary import Boundary
    from ov_tuner.stats.headtohead import Ratio


def names(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def percentile_name(percentile: int) -> str:
    """'median', 'p90'."""
    return "median" if percentile == 50 else f"p{percentile}"


def signed(value: float, decimals: int = 1, percent: bool = False) -> str:
    """'+4.1', '-0.8', '+12.3%' (`value` a share): rounded first, so that a value that rounds to nothing reads +0.0,
    never -0.0."""
    shown = round(value * 100 if percent else value, decimals) + 0.0  # + 0.0 turns -0.0 into 0.0
    return f"{shown:+.{decimals}f}{'%' if percent else ''}"


# What an interval reads where one pass gives none (a run stopped after its first: NaN ends).
NO_INTERVAL = "one pass, no interval"


def _has_interval(ratio: Ratio) -> bool:
    return math.isfinite(ratio.low) and math.isfinite(ratio.high)


def interval_text(ratio: Ratio) -> str:
    """'95%: +2.0..+6.2%', or NO_INTERVAL."""
    if not _has_interval(ratio):
        return NO_INTERVAL
    return f"{ratio.confidence * 100:g}%: {signed((ratio.low - 1) * 100)}..{signed(ratio.high - 1, percent=True)}"


def gain(ratio: Ratio) -> str:
    """'+4.1% (95%: +2.0..+6.2%)'."""
    return f"{signed(ratio.value - 1, percent=True)} ({interval_text(ratio)})"


def gain_inline(ratio: Ratio) -> str:
    """'+0.8%, 95%: -1.5..+3.1%', for inside a parenthesis."""
    return f"{signed(ratio.value - 1, percent=True)}, {interval_text(ratio)}"


def factor(ratio: Ratio) -> str:
    """'1.95x (95%: 1.90..2.00x)', or 'no measurable difference (1.02x, 95%: 0.97..1.07x)'."""
    interval = (f"{ratio.confidence * 100:g}%: {ratio.low:.2f}..{ratio.high:.2f}x"
                if _has_interval(ratio) else NO_INTERVAL)
    if not ratio.clear:
        return f"no measurable difference ({ratio.value:.2f}x, {interval})"
    return f"{ratio.value:.2f}x ({interval})"


def ms_text(ms: float) -> str:
    """'41 ms', or what an infinite percentile means: too many frames were dropped."""
    return f"{ms:.0f} ms" if math.isfinite(ms) else "not reached (too many frames dropped)"


def cosine_text(cosine: float) -> str:
    """'1 (exact)', '1 - 1.2e-09' near 1, else '0.999312': so that a tiny loss never reads as none."""
    if cosine == 1.0:
        return "1 (exact)"
    return f"1 - {1 - cosine:.1e}" if cosine > 0.99999 else f"{cosine:.6f}"


def edge_text(found: Boundary) -> str:
    """The windows at a walk's edge: the load it served and the lowest tried above it, where either was measured more
    than once ('42 met 3 of 4, 44 met 0 of 3'; '' where neither was)."""
    above = [load for load, _, _ in found.loads if load > found.served]
    edge = (found.served, min(above)) if above else (found.served,)
    return ", ".join(f"{load:g} met {met} of {n}" for load, n, met in found.loads if load in edge and n > 1)


def clock_text(seconds: float) -> str:
    """Seconds as a clock reads them: 0:42, 3:05, 1:02:00."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"
