"""Smart search: the rules that let a sweep skip points that cannot win on throughput.

Per compiled model, request counts are raised in order until the next step adds less than
SEARCH_MIN_GAIN; stream counts are raised until a new count fails to beat the best of the smaller
ones by that much; and, with more than one stream, fewer requests than streams are never tried, since
they leave streams idle (see the "fewer requests than streams" diagnostic). A point being measured
stops as soon as its windows show it is outpaced by the best point so far: measuring a loser until
it settles would only make its figure more precise.
"""

from __future__ import annotations

import math

from ov_tuner.schema import Window

# A step (more requests, or more streams) that adds less than this fraction of FPS ends the climb.
SEARCH_MIN_GAIN = 0.03
# The benefit of the doubt a point's first window gets on its own. A new set of requests can start
# slow (scripts/bench_slow_start.py: ResNet-50 at batch 2 x 2 streams ran its first 1 s window 5-9%
# under the later ones), so one window outpaces a point only when it is far under the best, as the
# clear losers (8-20% under in scripts/bench_search.py) are; a near-tie gets a second window.
FIRST_WINDOW_DOUBT = 0.06


def candidate_nireqs(nireqs: tuple[int, ...], streams: int) -> tuple[int, ...]:
    """The request counts worth trying with `streams` streams: those that keep every stream busy."""
    busy = tuple(n for n in nireqs if n >= streams)
    return busy or (max(nireqs),)


def worth_more_requests(fps_by_nireq: list[float], min_gain: float = SEARCH_MIN_GAIN) -> bool:
    """Whether the last request count gained enough over the best before it to try the next one."""
    if len(fps_by_nireq) < 2:
        return True
    return fps_by_nireq[-1] >= max(fps_by_nireq[:-1]) * (1 + min_gain)


def worth_more_streams(best_by_streams: list[float], min_gain: float = SEARCH_MIN_GAIN) -> bool:
    """Whether the last stream count's best beat the smaller counts' best by enough to try more streams."""
    if len(best_by_streams) < 2:
        return True
    return best_by_streams[-1] >= max(best_by_streams[:-1]) * (1 + min_gain)


def outpaced(windows: list[Window], best_fps: float, tolerance: float) -> bool:
    """Whether a point's windows so far put it out of reach of `best_fps`.

    Its FPS so far, given the benefit of the doubt, is still below the best. The doubt is `tolerance`
    narrowed by the square root of the window count, as the noise of a mean is, and FIRST_WINDOW_DOUBT
    for a lone first window. With the default 3%: one window more than 5.7% under the best, two more
    than 2.1% under, or three more than 1.7% under, end the point.
    """
    n = len(windows)
    doubt = max(tolerance, FIRST_WINDOW_DOUBT) if n == 1 else tolerance / math.sqrt(n)
    fps = sum(w.fps * w.seconds for w in windows) / sum(w.seconds for w in windows)
    return fps * (1 + doubt) < best_fps
