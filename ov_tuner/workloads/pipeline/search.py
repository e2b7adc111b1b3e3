"""The pipeline search: which split of the device to try next, and at how many cameras. Pure: it reads the trials
so far and names the next, so a test drives it on made-up trials and a resumed search continues where it stopped.

How it searches. First the starting points, each walked to the cameras it serves (the one capacity walk, each edge
measured twice: ov_tuner.engine.cameras.SEARCH_WALK):
every model at OpenVINO default, every model at its solo-tuned setting (both run together: the baselines), and the
cores shared out in proportion to each stage's cost per frame. Then it climbs: every neighbour of the best split (one
stage's threads, streams or requests per stream one step along, or the decoder's threads) is tried once at one camera
more than the best serves; a neighbour that serves it goes on growing one camera at a time, its edges measured twice
(NEIGHBOUR_WALK), and becomes the best; one that fails is done. The search ends when no neighbour of the best
serves more, after `max_trials` trials of the climb, or at once where no starting point serves one camera. A failure
on a disturbed host is set aside and tried again, as in the camera search.

Why a neighbour is tried at best + 1 and not searched from one camera: the question is only whether it beats the best,
and one trial answers it; the whole search would cost five or six.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from ov_tuner.devices.decisions import powers_of_two_up_to
from ov_tuner.engine.boundary import Growth, WalkRule
from ov_tuner.engine.cameras import MAX_CAMERAS, NEIGHBOUR_WALK, SEARCH_WALK, capacity, judged, next_cameras
from ov_tuner.schema import CameraTarget, LoadTrial
from ov_tuner.workloads.pipeline.schema import OPENVINO_DEFAULT, Origin, PipelineTrial, Split, StageRan, StageSetting

# Requests in flight per stream a stage is tried with: one, or two (a stream starts its next inference while the
# host hands the last one on).
PER_STREAM = (1, 2)


@dataclass(frozen=True)
class StageSpace:
    """The settings one stage is tried at: INFERENCE_NUM_THREADS values ((0,) where the device takes none: a GPU),
    stream counts (within the threads, on a CPU) and requests per stream."""

    threads: tuple[int, ...]
    streams: tuple[int, ...]
    per_stream: tuple[int, ...] = PER_STREAM

    def settings(self) -> list[StageSetting]:
        return [StageSetting(s, s * k, t) for t in self.threads for s in self.streams if t == 0 or s <= t
                for k in self.per_stream]


@dataclass(frozen=True)
class SplitSpace:
    """Every split the search may try: one StageSpace per stage and the decoder's thread counts."""

    stages: tuple[StageSpace, ...]
    decode_threads: tuple[int, ...]

    def splits(self) -> list[Split]:
        """All of them, for an exhaustive search (scripts/bench_pipeline.py)."""
        return [Split(tuple(stages), decode) for stages in itertools.product(*(s.settings() for s in self.stages))
                for decode in self.decode_threads]

    def neighbours(self, split: Split, ran: Sequence[StageRan] = ()) -> list[Split]:
        """The splits one step from `split`. A stage outside the space (OpenVINO default, or a solo setting) first
        takes its nearest setting within it: what it ran (`ran`), on all the threads."""
        stages = [self._nearest(i, s, ran[i] if i < len(ran) else None) for i, s in enumerate(split.stages)]
        found: list[Split] = []
        for i, (space, setting) in enumerate(zip(self.stages, stages, strict=True)):
            for moved in _stage_steps(space, setting):
                found.append(Split((*stages[:i], moved, *stages[i + 1:]), split.decode_threads))
        for decode in _steps(self.decode_threads, split.decode_threads):
            found.append(Split(tuple(stages), decode))
        return [s for s in dict.fromkeys(found) if s != split]

    def _nearest(self, index: int, setting: StageSetting, ran: StageRan | None) -> StageSetting:
        space = self.stages[index]
        streams, nireq = (ran.streams, ran.nireq) if setting.default and ran else (setting.streams, setting.nireq)
        threads = setting.threads if setting.threads in space.threads else max(space.threads)
        streams = _closest(tuple(s for s in space.streams if threads == 0 or s <= threads), max(streams, 1))
        per_stream = _closest(space.per_stream, max(1, round(nireq / streams)))
        return StageSetting(streams, streams * per_stream, threads)


def split_space(cpu_stages: Sequence[bool], cores: int) -> SplitSpace:
    """The space on `cores` cores: a CPU stage's threads and streams 1, 2, 4, ... up to the cores; a stage on
    another device (a GPU) 1 or 2 streams with 1, 2 or 4 requests each; the decoder 1, 2, 4, ... threads up to the
    cores."""
    ladder = powers_of_two_up_to(max(cores, 1))
    return SplitSpace(tuple(StageSpace(ladder, ladder) if cpu else StageSpace((0,), (1, 2), (1, 2, 4))
                            for cpu in cpu_stages), ladder)


def seeds(solo: Sequence[StageSetting], cost_per_frame: Sequence[float], space: SplitSpace,
          cores: int, decode_cost: float = 0.0) -> list[tuple[Split, Origin]]:
    """The starting points: OpenVINO default for every stage, every stage at its `solo` setting (both with the
    decoder on every core, as nothing tuned limits it), and the cores shared out: each CPU stage, and the decoder,
    gets threads in proportion to its cost per frame (`cost_per_frame`, a stage's time per frame alone on the whole
    device; `decode_cost`, a frame's decode on one thread over the cores), a stage one stream per thread and two
    requests each; the decoder one thread at least."""
    everywhere = max(space.decode_threads)
    total = (sum(cost_per_frame) + decode_cost) or 1.0
    shared = []
    for stage_space, cost in zip(space.stages, cost_per_frame, strict=True):
        if stage_space.threads == (0,):
            shared.append(StageSetting(1, 2))
            continue
        threads = _closest(stage_space.threads, max(1, round(cores * cost / total)))
        streams = _closest(tuple(s for s in stage_space.streams if s <= threads), threads)
        shared.append(StageSetting(streams, streams * max(stage_space.per_stream), threads))
    found = [(Split(tuple(OPENVINO_DEFAULT for _ in solo), everywhere), Origin.DEFAULT),
             (Split(tuple(solo), everywhere), Origin.SOLO),
             (Split(tuple(shared), _closest(space.decode_threads, max(1, round(cores * decode_cost / total)))),
              Origin.SHARED)]
    return list({split: (split, origin) for split, origin in reversed(found)}.values())[::-1]


def search_trials(trials: Sequence[PipelineTrial]) -> dict[Split, list[PipelineTrial]]:
    """The search's trials (pass_number 0) by split, in the order the splits were first tried."""
    by_split: dict[Split, list[PipelineTrial]] = {}
    for trial in trials:
        if trial.pass_number == 0:
            by_split.setdefault(trial.split, []).append(trial)
    return by_split


def loads(trials: Sequence[PipelineTrial]) -> list[LoadTrial]:
    return [t.load for t in trials]


def split_capacity(trials: Sequence[PipelineTrial], target: CameraTarget) -> int:
    return capacity(loads(trials), target)


def best_split(trials: Sequence[PipelineTrial], target: CameraTarget) -> Split | None:
    """The split that served the most cameras in the search (the first tried among equals)."""
    by_split = search_trials(trials)
    if not by_split:
        return None
    return max(by_split, key=lambda s: (split_capacity(by_split[s], target), -list(by_split).index(s)))


def round_contenders(trials: Sequence[PipelineTrial], starts: Sequence[tuple[Split, Origin]],
                     target: CameraTarget) -> list[Split]:
    """The splits measured side by side in the rounds: the search's best, then the two baselines (each once)."""
    best = best_split(trials, target)
    baselines = [s for s, origin in starts if origin in (Origin.SOLO, Origin.DEFAULT)]
    return list(dict.fromkeys(s for s in [best, *baselines] if s is not None))


def next_trial(trials: Sequence[PipelineTrial], starts: Sequence[tuple[Split, Origin]], space: SplitSpace,
               target: CameraTarget, max_trials: int) -> tuple[Split, int] | None:
    """The split and camera count to try next, or None when the search is done (see the module's docstring)."""
    by_split = search_trials(trials)
    for split, _ in starts:
        cameras = next_cameras(loads(by_split.get(split, [])), target, SEARCH_WALK)
        if cameras is not None:
            return split, cameras
    seeded = {split for split, _ in starts}
    if sum(len(t) for split, t in by_split.items() if split not in seeded) >= max_trials:
        return None
    if all(split_capacity(by_split[split], target) == 0 for split, _ in starts):
        return None  # not one camera at the starting points: the rate or the budget is out of this device's reach
    for split, tried in by_split.items():
        if split not in seeded:
            cameras = _next_for_neighbour(loads(tried), target)
            if cameras is not None:
                return split, cameras
    best = best_split(trials, target)
    assert best is not None
    best_trials = by_split[best]
    for neighbour in space.neighbours(best, best_trials[-1].ran):
        if neighbour not in by_split:
            return neighbour, split_capacity(best_trials, target) + 1
    return None


def next_exhaustive(trials: Sequence[PipelineTrial], space: SplitSpace,
                    target: CameraTarget) -> tuple[Split, int] | None:
    """Every split of `space` in turn, each with the whole camera search: what the climb is checked against
    (scripts/bench_pipeline.py)."""
    by_split = search_trials(trials)
    for split in space.splits():
        cameras = next_cameras(loads(by_split.get(split, [])), target, SEARCH_WALK)
        if cameras is not None:
            return split, cameras
    return None


def neighbour_done(trials: Sequence[LoadTrial], target: CameraTarget) -> bool:
    """Whether a neighbour's trials are all it gets: it failed its first count, or its camera search ended."""
    return _next_for_neighbour(trials, target) is None


def _next_for_neighbour(trials: Sequence[LoadTrial], target: CameraTarget) -> int | None:
    counted = judged(trials, target)
    if trials and not counted:
        return trials[-1].cameras  # its first trial set aside: the host was busy
    if not counted[0].serves(target):
        return None
    return next_cameras(trials, target, NEIGHBOUR_WALK)


def next_in_pass(trials: Sequence[LoadTrial], start: int, target: CameraTarget) -> int | None:
    """The camera count a contender tries next within one pass of the head-to-head rounds, or None when its capacity
    in the pass is known: the one capacity walk (pass_walk) from `start`, what the search found."""
    return next_cameras(trials, target, pass_walk(start))


def pass_walk(start: int) -> WalkRule:
    """A pass's walk: from `start` up while it serves, or halving while it fails, by steps that double past `start`
    (1, 2, 4, ...: a pass that lands far from the search's figure still ends in a few trials), then bisected until
    a count that served sits just below one that failed (or one camera failed). One window a count: each pass is
    one of the paired samples the rounds' interval is drawn from, so the passes, not the walk, repeat."""
    return WalkRule(start=max(start, 1), most=MAX_CAMERAS, growth=Growth.WIDENING, precision=0.0, repeats=1,
                    most_repeats=1)


def pass_capacity(trials: Sequence[LoadTrial], target: CameraTarget) -> int:
    """The cameras a contender served in one pass."""
    return capacity(trials, target)


def _stage_steps(space: StageSpace, setting: StageSetting) -> list[StageSetting]:
    moved = []
    for threads in _steps(space.threads, setting.threads):
        streams = setting.streams if threads == 0 or setting.streams <= threads else threads
        moved.append(StageSetting(streams, streams * (setting.nireq // setting.streams), threads))
    fits = tuple(s for s in space.streams if setting.threads == 0 or s <= setting.threads)
    for streams in _steps(fits, setting.streams):
        moved.append(StageSetting(streams, streams * (setting.nireq // setting.streams), setting.threads))
    for per_stream in _steps(space.per_stream, setting.nireq // setting.streams):
        moved.append(StageSetting(setting.streams, setting.streams * per_stream, setting.threads))
    return moved


def _steps(values: tuple[int, ...], at: int) -> list[int]:
    """The values one step either side of `at` along `values`."""
    if at not in values:
        return [_closest(values, at)]
    i = values.index(at)
    return [values[j] for j in (i - 1, i + 1) if 0 <= j < len(values)]


def _closest(values: tuple[int, ...], wanted: int) -> int:
    return min(values, key=lambda v: (abs(v - wanted), v))
