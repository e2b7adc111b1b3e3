"""What the user asks a sweep for: when a measurement stops, the confirmation round, the search, how int8 is made,
and the sweep's spec."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from ov_tuner.schema.config import InputMode, Precision
from ov_tuner.schema.measurement import Ending, Verdict, Window

# How long a window lasts by default (--window): a second; half that where a smart search screens the points for a
# confirmation round, which measures every contender again, interleaved: a screen needs to rank points, and a point
# clearly behind shows it in half a second as in one (MobileNet-v2 on 2 cores: 1 s windows spread 5-20% there, so the
# search's decisions rest on the gaps between points, not on any one window).
WINDOW_S = 1.0
SCREEN_WINDOW_S = 0.5


@dataclass(frozen=True)
class StopRule:
    """When a measurement ends. Durations in seconds."""

    window_s: float = WINDOW_S
    min_window_requests: int = 16
    tolerance: float = 0.03
    settle_windows: int = 3
    max_s: float = 10.0
    fixed_s: float | None = None

    def __post_init__(self) -> None:
        if self.window_s <= 0 or self.max_s <= 0 or self.tolerance < 0 or self.settle_windows < 2:
            raise ValueError("window_s and max_s must be > 0, tolerance >= 0, settle_windows >= 2")

    def settled(self, windows: list[Window]) -> bool:
        """The last `settle_windows` undisturbed windows agree: (max - min) / mean within `tolerance` on FPS and
        median latency. Windows measured while the host was busy with other work are set aside."""
        clean = [w for w in windows if not w.disturbed]
        if len(clean) < self.settle_windows:
            return False
        last = clean[-self.settle_windows:]
        return all(_spread([getattr(w, name) for w in last]) <= self.tolerance for name in ("fps", "median_ms"))

    def ending(self, windows: list[Window], elapsed_s: float, verdict: Verdict | None = None) -> Ending | None:
        """Why a stability-driven run ends after its latest window, or None to go on: the windows agree, the
        caller's verdict (e.g. smart search: outpaced by a better point) ends it, or the time cap is reached.
        The measurement engine and the search simulator both end their runs here."""
        if self.settled(windows):
            return Ending.SETTLED
        decided = verdict(windows) if verdict is not None else None
        if decided is not None:
            return decided
        return Ending.UNSETTLED if elapsed_s >= self.max_s else None


def _spread(values: list[float]) -> float:
    mean = sum(values) / len(values)
    return (max(values) - min(values)) / mean if mean > 0 else float("inf")


# The share of a confirmation round's budget its first passes over every contender may take (the rest goes to the
# passes over the pairs still undecided), and the shortest window a visit is given to keep within it.
FIRST_PASSES_SHARE = 0.75
MIN_WINDOW_S = 0.1


@dataclass(frozen=True)
class ConfirmRule:
    """How the confirmation round measures its contenders: first `passes` passes (alternating direction) over
    all of them, each giving every contender one window of `window_s` seconds; then, pass after pass, only the
    leader and the contenders it cannot yet tell apart (the sequential rule, ov_tuner.engine.rounds), up to
    `max_passes` in all (or `passes`, where more) and while the whole round (compiles, warm-up, passes) costs at
    most `budget_share` of the sweep.

    For a fixed cost, more and shorter windows give the narrower interval (Student's t falls with the passes),
    until each visit's fill and drain (RequestLoop.visit) outweigh the window. Three passes are the fewest whose
    interval is of use (t for 2 degrees of freedom is 4.3, for 1 it is 12.7); a stated interval is dominated by
    the rerun term (RERUN_SD) from then on, so the passes beyond serve only the pairs still undecided.
    """

    passes: int = 3
    window_s: float = 0.25
    max_passes: int = 20
    budget_share: float = 0.2
    # The fewest completions a visit's window holds (a sweep's windows hold 16): a round pairs its visits and
    # states intervals over the passes, so a visit needs a steady figure, not a latency distribution of its own;
    # on a slow model 16 requests stretched every 0.1 s window to 0.15-0.25 s (a DBNet at 60-100 FPS).
    visit_requests: int = 8

    def __post_init__(self) -> None:
        if self.passes < 2 or self.window_s <= 0 or not 0 < self.budget_share < 1:
            raise ValueError("a confirmation round needs at least 2 passes, windows above 0 s and a budget share "
                             "between 0 and 1")

    def budget_s(self, search_s: float, contenders: int) -> float:
        """The most seconds the whole round over `contenders` may take after a search of `search_s` seconds:
        `budget_share` of both, and never less than its first passes at full windows with the sequential rule's
        share beside them (FIRST_PASSES_SHARE): a smart search that screened in half-second windows is cheap, and
        the round is where the answer is decided."""
        first_passes = self.passes * contenders * self.window_s / FIRST_PASSES_SHARE
        return max(search_s * self.budget_share / (1 - self.budget_share), first_passes)

    def window_for(self, contenders: int, budget_s: float) -> float:
        """The window each visit takes: `window_s`, shortened where the first `passes` passes over `contenders`
        would take more than FIRST_PASSES_SHARE of what is left of the budget (`budget_s`), so that many
        contenders do not overrun it before the sequential rule can stop any; never below MIN_WINDOW_S, where a
        visit's fill and drain would outweigh the window."""
        fits = budget_s * FIRST_PASSES_SHARE / (self.passes * max(contenders, 1))
        return max(MIN_WINDOW_S, min(self.window_s, fits))


class Search(str, Enum):
    """The search mode: every point of the space ("grid"), or only the points that can still win ("smart")."""

    GRID = "grid"
    SMART = "smart"


def default_window(search: Search, confirmed: bool) -> float:
    """The window a sweep measures in where --window is not given: SCREEN_WINDOW_S where a smart search screens for
    a confirmation round, else WINDOW_S."""
    return SCREEN_WINDOW_S if search is Search.SMART and confirmed else WINDOW_S


AUTO = "auto"


class Preset(str, Enum):
    """NNCF's quantization presets: symmetric weights and activations, or asymmetric activations (better where
    activations are not centred on zero, a little slower)."""

    PERFORMANCE = "performance"
    MIXED = "mixed"


# Calibration inputs by default: NNCF's own 300 from images (as many as there are); 64 generated ones, since noise
# only sets a speed figure and more of it costs time for nothing.
CALIBRATION_IMAGES = 300
CALIBRATION_GENERATED = 64


@dataclass(frozen=True)
class Int8Options:
    """How the INT8 IR is made: NNCF's preset, how many calibration inputs it takes (None: CALIBRATION_IMAGES or
    CALIBRATION_GENERATED), and, with accuracy control, the most top-1 agreement with FP32 (percentage points;
    cosine where no output holds class scores) it may give up on held-apart inputs (None: plain post-training
    quantization)."""

    preset: Preset = Preset.PERFORMANCE
    subset_size: int | None = None
    max_drop: float | None = None

    def __post_init__(self) -> None:
        if (self.subset_size is not None and self.subset_size < 1) or (
                self.max_drop is not None and not 0 <= self.max_drop <= 100):
            raise ValueError("subset_size must be >= 1 and max_drop between 0 and 100")

    def calibration_count(self, images: bool) -> int:
        """How many calibration inputs NNCF takes."""
        return self.subset_size or (CALIBRATION_IMAGES if images else CALIBRATION_GENERATED)

# How many generated inputs an output-accuracy comparison runs by default (with --images: every image given).
ACCURACY_INPUTS = 32


@dataclass(frozen=True)
class SweepSpec:
    """What the user asked to sweep. `precisions`, `streams` and `nireq` of None mean "auto" (resolved per
    device: ov_tuner.devices.decisions)."""

    model: Path
    out: Path
    devices: tuple[str, ...] = ("CPU",)
    precisions: tuple[Precision, ...] | None = None
    streams: tuple[int, ...] | None = None
    nireq: tuple[int, ...] | None = None
    batches: tuple[int, ...] = (1,)
    stop: StopRule = field(default_factory=StopRule)
    warmup_s: float = 0.1
    input_mode: InputMode = InputMode.INFERENCE_ONLY
    search: Search = Search.GRID
    shapes: dict[str, list[int]] = field(default_factory=dict)
    layouts: dict[str, str] = field(default_factory=dict)
    images: Path | None = None
    baselines: bool = True
    confirm: ConfirmRule | None = field(default_factory=ConfirmRule)
    settings: dict[str, tuple[str, ...]] = field(default_factory=dict)
    cache_dir: Path | None = None  # CACHE_DIR for compiles where a cache pays (GPU, virtual devices) ...
    cache_everywhere: bool = False  # ... or for every device, when the user named the folder
    accuracy_inputs: int | None = ACCURACY_INPUTS  # outputs against the FP32 reference on this many inputs (None: off)
    int8: Int8Options | None = None  # given: int8 joins --precision auto; its options where precisions name INT8
    cpus: float | None = None  # measure inside a CPU quota of this many CPUs, set up for the sweep (None: as it is)
    time_budget_s: float | None = None  # the most seconds the whole run may take (ov_tuner.engine.budget; None: none)

    def __post_init__(self) -> None:
        if self.warmup_s < 0:
            raise ValueError("warmup_s must be >= 0")

    @property
    def int8_options(self) -> Int8Options | None:
        """How to make the INT8 IR, when int8 is swept (named in `precisions`, or added to auto by `int8`)."""
        if self.int8 is not None or (self.precisions is not None and Precision.INT8 in self.precisions):
            return self.int8 or Int8Options()
        return None
