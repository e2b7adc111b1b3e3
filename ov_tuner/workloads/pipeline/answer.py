"""The pipeline answer, from a pipeline's stored trials: the split to deploy, how many cameras it serves against
every model at its solo-tuned setting and at OpenVINO default (measured side by side in passes), and where a frame's
time goes. Pure; present/ words it.

Which contender is deployed: the simplest that no other is shown to beat (Verdict.MORE, on the intervals of the
cameras and of the frames a second held, paired by pass): every model at OpenVINO default, then every model at its
solo answer, then the search's split. The simpler is kept until the dearer is shown faster, so two contenders the
rounds cannot tell apart give the same answer on every run, where the one holding more in the point estimate changed
from run to run; the rounds' leader against the answer is stated with its interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ov_tuner.engine.cameras import SEARCH_WALK, capacity, next_cameras, served, windows
from ov_tuner.schema import CameraTarget
from ov_tuner.stats.headtohead import paired_ratio
from ov_tuner.stats.interval import paired_interval, pass_adjusted_means
from ov_tuner.stats.settle import settling
from ov_tuner.workloads.pipeline.answer_record import (
    GAIN_CONFIDENCE,
    SIMPLER_FIRST,
    CameraGain,
    HarnessFigures,
    PipelineAnswer,
    RoundCameras,
    StageShare,
    Tried,
    Verdict,
)
from ov_tuner.workloads.pipeline.rate import pass_held
from ov_tuner.workloads.pipeline.results_file import StoredPipeline
from ov_tuner.workloads.pipeline.schema import (
    Origin,
    PipelineTrial,
    Split,
)
from ov_tuner.workloads.pipeline.search import (
    best_split,
    loads,
    neighbour_done,
    search_trials,
    split_capacity,
)

# The smallest difference in cameras worth settling with more passes: one.
LEAST_CAMERAS = 1.0


def pipeline_answer(stored: StoredPipeline) -> PipelineAnswer | None:
    """The answer record of a stored pipeline; None before any search trial."""
    trials, target = stored.trials, stored.pipeline.target
    best = best_split(trials, target)
    if best is None:
        return None
    origins = dict(stored.starts)
    by_split = search_trials(trials)
    tried = (*(_tried(split, origins.get(split, Origin.NEIGHBOUR), ts, target) for split, ts in by_split.items()),
             # a baseline a time budget left unsearched: tried at no count, so its rounds still name it
             *(Tried(split, origin, 0, False, 0) for split, origin in stored.starts
               if split not in by_split and origin in (Origin.SOLO, Origin.DEFAULT)))
    measured = _round_figures(trials, best, stored.starts, target)
    held = _held(measured)
    leading = max(range(len(measured)), key=lambda i: (held[i], measured[i].origin is None))
    kept = deployed(measured, held, origins)
    answer_round = measured[leading if kept is None else kept]
    from_rounds = len(answer_round.per_pass) > 0
    split = answer_round.split if from_rounds else best
    searched = next(t for t in tried if t.split == split)
    mine = [t for t in trials if t.split == split]
    ran = next((t.ran for t in reversed(mine) if t.ran), ())
    chosen = answer_round if from_rounds else measured[0]
    others = [_named(r, origins) for r in measured if r.origin is not None or r.split != chosen.split]
    rounds = (replace(chosen, origin=None), *others)
    gains = tuple(camera_gain(rounds[0], r) for r in rounds[1:] if r.origin in (Origin.SOLO, Origin.DEFAULT))
    overloaded = _overloaded(mine, target)
    shares = _shares(overloaded)
    bottleneck = max(shares, key=lambda s: (s.utilisation, s.wait_ms)).name if shares else ""
    solo = next((s.stages for s, o in stored.starts if o is Origin.SOLO), ())
    cameras = rounds[0].cameras if from_rounds else searched.cameras
    rate = rounds[0].fps_at_headline if from_rounds else None
    served = cameras * (rate if rate is not None else target.fps)
    harness = (HarnessFigures(stored.harness, served) if stored.harness is not None and stored.harness.split == split
               else None)
    leader = _named(measured[leading], origins) if measured[leading].split != split else None
    leader_gain = None if leader is None else camera_gain(leader, _named(answer_round, origins))
    return PipelineAnswer(pipeline=stored.pipeline, split=split, ran=ran, cameras=cameras,
                          finished=searched.finished,
                          harness=harness, rounds=rounds, gains=gains, shares=shares, bottleneck=bottleneck,
                          overloaded_at=overloaded.load.cameras, tried=tried, solo=solo, box=stored.environment.box,
                          from_rounds=from_rounds, leader=leader, leader_gain=leader_gain)


def deployed(measured: Sequence[RoundCameras], held: Sequence[float], origins: dict[Split, Origin]) -> int | None:
    """The index of the simplest contender (SIMPLER_FIRST) that no other beats (Verdict.MORE) over the passes both
    finished; None where fewer than two contenders finished two passes (the leader then stands alone)."""
    finished = [i for i, r in enumerate(measured) if held[i] >= 0 and len(r.per_pass) >= 2]
    if len(finished) < 2:
        return None
    for i in sorted(finished, key=lambda i: SIMPLER_FIRST.index(measured[i].origin)):
        mine = _named(measured[i], origins)
        if not any(camera_gain(_named(measured[j], origins), mine).verdict is Verdict.MORE for j in finished if j != i):
            return i
    return max(finished, key=lambda i: held[i])  # every one beaten by another: not transitive, the leader


def _named(contender: RoundCameras, origins: dict[Split, Origin]) -> RoundCameras:
    """`contender` with the origin its split was searched from, where it is the search's split (origin None)."""
    if contender.origin is not None:
        return contender
    return replace(contender, origin=origins.get(contender.split, Origin.NEIGHBOUR))


def _held(measured: Sequence[RoundCameras]) -> list[float]:
    """What the answer is chosen on, per contender: the frames a second it held in all over the passes, as the
    rounds engine ranks them (pass-adjusted means: a contender that stopped early is scaled by the passes it shared
    with the one that took the most); -1 before its passes found one."""
    numbers = sorted({n for r in measured for n in r.numbers})
    table = np.full((len(numbers), len(measured)), np.nan)
    for j, contender in enumerate(measured):
        for number, figure in zip(contender.numbers, contender.arrivals, strict=True):
            table[numbers.index(number), j] = figure
    means = pass_adjusted_means(table, log=False) if numbers else np.full(len(measured), np.nan)
    return [float(m) if np.isfinite(m) else -1.0 for m in means]


def _tried(split: Split, origin: Origin, trials: Sequence[PipelineTrial], target: CameraTarget) -> Tried:
    found = loads(trials)
    finished = (neighbour_done(found, target) if origin is Origin.NEIGHBOUR
                else next_cameras(found, target, SEARCH_WALK) is None)
    outcome = served(found, target)
    fails_at = min((k for k, ok in outcome.items() if not ok), default=None)
    return Tried(split, origin, capacity(found, target), finished, len(trials), fails_at)


def _round_figures(trials: Sequence[PipelineTrial], best: Split, starts: Sequence[tuple[Split, Origin]],
                   target: CameraTarget) -> tuple[RoundCameras, ...]:
    """What the rounds stored, read back (the rounds engine ran them): the search's best (origin None), then each
    baseline, with the cameras served in every pass each finished its walk in and the rate it held there where its
    rate search finished too (a baseline that is the best's own split shares its passes)."""
    slots = [(best, None), *((s, o) for s, o in starts if o in (Origin.SOLO, Origin.DEFAULT))]
    numbers = sorted({t.pass_number for t in trials if t.pass_number > 0})
    found = search_trials(trials)
    result = []
    for split, origin in slots:
        start = split_capacity(found.get(split, []), target)
        held = [(number, pass_held([t for t in trials if t.pass_number == number and t.split == split], start, target))
                for number in numbers]
        kept = [(number, h) for number, h in held if h is not None]
        ran = next((t.ran for t in reversed(trials) if t.split == split and t.ran), ())
        finished = {number for number, _ in kept}
        walks = [t.load for t in trials if t.pass_number in finished and t.split == split and t.fps is None]
        result.append(RoundCameras(split, origin, tuple(h.cameras for _, h in kept), ran,
                                   per_pass_fps=tuple(h.fps for _, h in kept),
                                   numbers=tuple(number for number, _ in kept), windows=tuple(windows(walks, target)),
                                   seconds=sum(w.seconds for w in walks)))
    return tuple(result)


def camera_gain(answer: RoundCameras, baseline: RoundCameras) -> CameraGain:
    """Paired by pass: over the passes both finished (the test data of an older file, which numbered none, pair
    in order)."""
    assert baseline.origin is not None
    a, b = _paired(answer, baseline, answer.per_pass), _paired(baseline, answer, baseline.per_pass)
    cameras = paired_interval(a, b, GAIN_CONFIDENCE)
    positive = a.size >= 2 and bool(np.all(a > 0) and np.all(b > 0))
    ratio = paired_ratio(a, b, GAIN_CONFIDENCE) if positive else None
    mine, theirs = _paired(answer, baseline, answer.arrivals), _paired(baseline, answer, baseline.arrivals)
    held = mine.size >= 2 and bool(np.all(mine > 0) and np.all(theirs > 0))
    arrivals = paired_ratio(mine, theirs, GAIN_CONFIDENCE) if held else None
    gain = CameraGain(baseline=baseline.origin, difference=cameras.value, low=cameras.low, high=cameras.high,
                      passes=cameras.n, ratio=ratio, arrivals=arrivals)
    decided = verdict(gain)
    a_pass = sum(r.seconds / len(r.per_pass) for r in (answer, baseline) if r.per_pass)
    settle = None if decided.told_apart else settling(cameras.value, cameras.low, cameras.high, cameras.n, a_pass,
                                                      LEAST_CAMERAS)
    return replace(gain, verdict=decided, settle=settle)


def verdict(gain: CameraGain) -> Verdict:
    """More or fewer only where every figure stated (the cameras, and the frames a second held where the passes found
    them) excludes no change, in the same direction; SPLIT where they disagree."""
    if gain.passes < 2:
        return Verdict.TOO_FEW
    signs = [(gain.low > 0) - (gain.high < 0)]
    if gain.arrivals is not None:
        signs.append((gain.arrivals.low > 1) - (gain.arrivals.high < 1))
    if all(s == 1 for s in signs):
        return Verdict.MORE
    if all(s == -1 for s in signs):
        return Verdict.FEWER
    return Verdict.NOT_APART if not any(signs) else Verdict.SPLIT


def _paired(contender: RoundCameras, other: RoundCameras, figures: Sequence[float] | np.ndarray) -> np.ndarray:
    """`contender`'s figures in the passes `other` finished too, in pass order."""
    values = np.asarray(figures, dtype=float)
    if not contender.numbers or not other.numbers:
        return values[:min(len(contender.per_pass), len(other.per_pass))]
    return values[[i for i, n in enumerate(contender.numbers) if n in other.numbers]]


def _overloaded(trials: Sequence[PipelineTrial], target: CameraTarget) -> PipelineTrial:
    """The answer's trial at the fewest cameras it failed (the latest of them), else its last trial."""
    failed = [t for t in trials if t.stages and not t.load.serves(target) and not t.load.disturbed]
    if not failed:
        return trials[-1]
    fewest = min(t.load.cameras for t in failed)
    return [t for t in failed if t.load.cameras == fewest][-1]


def _shares(trial: PipelineTrial) -> tuple[StageShare, ...]:
    frames = max(trial.load.completed, 1)
    return tuple(StageShare(s.name, s.runs / frames, s.busy_ms / s.runs if s.runs else 0.0,
                            s.wait_ms / s.runs if s.runs else 0.0, s.utilisation, s.slots)
                 for s in trial.stages)
