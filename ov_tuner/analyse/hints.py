"""What a performance hint sets besides streams and requests, and what that is worth: said only from the
confirmation round, where a hint baseline and its explicit twin (the same streams and requests, compiled as a
throughput deployment runs) were measured interleaved. Two figures measured minutes apart differ by the host's
drift as much as by a property; the round's ratio does not. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from ov_tuner.schema import Confirmation, Mode
from ov_tuner.stats.headtohead import HeadToHead, Ratio, RoundFigures


@dataclass(frozen=True)
class HintEffect:
    """A hint baseline against its explicit twin, head to head: the read-back properties that differ (name, the
    baseline's value, the twin's), and the baseline's FPS over the twin's."""

    baseline: RoundFigures
    twin: RoundFigures
    differing: tuple[tuple[str, str, str], ...]
    ratio: Ratio


def hint_effects(confirmation: Confirmation) -> list[HintEffect]:
    """Every hint baseline of the round whose read-back properties differ from its explicit twin's."""
    head = HeadToHead.of(confirmation)
    if head is None:
        return []
    found = []
    for base in head.figures:
        b = base.contender
        if b.config.explicit or b.config.mode is Mode.DEFAULT or b.compile is None:
            continue
        twin = next((f for f in head.figures if f.contender.config.mode is Mode.EXPLICIT
                     and (f.contender.config.heatmap_key, f.contender.config.input_mode)
                     == (b.config.heatmap_key, b.config.input_mode)
                     and (f.contender.streams, f.contender.nireq) == (b.streams, b.nireq)), None)
        if twin is None or twin.contender.compile is None:
            continue
        mine, theirs = b.compile.read_back, twin.contender.compile.read_back
        differing = tuple((k, mine.get(k, "-"), theirs.get(k, "-")) for k in sorted(mine.keys() | theirs.keys())
                          if mine.get(k) != theirs.get(k))
        if differing:
            found.append(HintEffect(base, twin, differing, head.ratio(b, twin.contender)))
    return found
