"""About how much more measuring would settle a comparison its interval leaves open.

An interval's half-width is made of a part that falls as one over the root of the evidence behind it (the passes of a
round, the windows of two walks) and, where the interval covers a rerun, a part that no amount of this run's
evidence narrows (the spread between runs, RERUN_SD: its `floor`). With the shrinking part `s` after `n` passes, a
difference `d` is excluded once the shrinking part is down to what the floor leaves of `d`: at n (s / (d - floor))^2
passes where the two add (a walk's), n s^2 / (d^2 - floor^2) where they add in quadrature (a ratio's). The difference
settled is the one measured, at least the smallest worth telling apart, and at least FLOOR_FACTOR times the floor:
nearer the floor the passes needed grow without bound, and a difference within it more passes cannot settle at all.

It reads the spread measured so far as the spread to come: an estimate to plan a rerun by ("about 3 more minutes"),
never a verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# The least difference settled, in multiples of the floor: at 1.5x it takes 1.8x the passes of a floorless interval
# (in quadrature), where at 1.1x it would take 5.8x.
FLOOR_FACTOR = 1.5


@dataclass(frozen=True)
class Settling:
    """What an undecided comparison would need: `more` passes (or windows) beyond those it had, about `seconds` of
    measuring at what its own took, to settle a difference of `difference` (a fraction for a ratio, else in the
    comparison's unit). `more` 0: its interval is already as narrow as a rerun lets it be, and a difference under
    `difference` more passes of this run cannot tell apart."""

    difference: float
    more: int
    seconds: float


def settling(value: float, low: float, high: float, spent: int, seconds_each: float, smallest: float,
             log: bool = False, floor: float = 0.0, linear: bool = False) -> Settling | None:
    """The Settling of a comparison reading `value` (low..high) from `spent` passes of `seconds_each`; None where
    the interval already tells the two apart or cannot say (fewer than two passes, no interval). With `log` the
    figures are ratios and `smallest` a fraction (0.05: 5%), `floor` on the log scale. `floor`: the part of the
    half-width more passes do not narrow, added to the rest in quadrature, or as a sum where `linear`."""
    if log:
        if min(value, low, high) <= 0:
            return None
        value, low, high, smallest = math.log(value), math.log(low), math.log(high), math.log1p(smallest)
    if spent < 2 or not (math.isfinite(low) and math.isfinite(high)) or low > 0 or high < 0:
        return None
    half = (high - low) / 2
    measured = max(abs(value), smallest)
    difference = max(measured, FLOOR_FACTOR * floor)
    if linear:
        shrinking, room = max(half - floor, 0.0), difference - floor
    else:
        shrinking, room = math.sqrt(max(half ** 2 - floor ** 2, 0.0)), math.sqrt(difference ** 2 - floor ** 2)
    more = math.ceil(spent * (shrinking / room) ** 2 - spent)
    more = max(more, 0 if difference > measured else 1)  # 0: the rerun's floor alone sets what can be told apart
    return Settling(math.expm1(difference) if log else difference, more, more * seconds_each)
