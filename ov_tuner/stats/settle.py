"""About how much more measuring would settle a comparison its interval leaves open.

An interval's half-width falls as one over the root of the evidence behind it (the passes of a round, the windows of
two walks), so one `half` wide after `spent` passes excludes a difference `d` once there are spent * (half / d)^2 of
them. That reads the spread measured so far as the spread to come: an estimate to plan a rerun by ("about 3 more
minutes"), never a verdict. The difference settled is the one measured, or the smallest worth telling apart where the
measured one is smaller (a difference of nothing is never settled by more passes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Settling:
    """What an undecided comparison would need: `more` passes (or windows) beyond those it had, about `seconds` of
    measuring at what its own took, to settle a difference of `difference` (a fraction for a ratio, else in the
    comparison's unit)."""

    difference: float
    more: int
    seconds: float


def settling(value: float, low: float, high: float, spent: int, seconds_each: float, smallest: float,
             log: bool = False) -> Settling | None:
    """The Settling of a comparison reading `value` (low..high) from `spent` passes of `seconds_each`; None where
    the interval already tells the two apart or cannot say (fewer than two passes, no interval). With `log` the
    figures are ratios and `smallest` a fraction (0.05: 5%)."""
    if log:
        if min(value, low, high) <= 0:
            return None
        value, low, high, smallest = math.log(value), math.log(low), math.log(high), math.log1p(smallest)
    if spent < 2 or not (math.isfinite(low) and math.isfinite(high)) or low > 0 or high < 0:
        return None
    half = (high - low) / 2
    difference = max(abs(value), smallest)
    more = max(math.ceil(spent * ((half / difference) ** 2 - 1)), 1)
    return Settling(math.expm1(difference) if log else difference, more, more * seconds_each)
