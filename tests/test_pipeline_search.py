"""The pipeline search's policy, driven on made-up trials: a landscape says how many cameras each split serves."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from ov_tuner.engine.cameras import SEARCH_WALK
from ov_tuner.schema import CameraTarget, LoadTrial
from ov_tuner.workloads.pipeline.rate import MOST_RATE, RATE_PRECISION, held_rate, next_rate
from ov_tuner.workloads.pipeline.schema import OPENVINO_DEFAULT, Origin, PipelineTrial, Split, StageRan, StageSetting
from ov_tuner.workloads.pipeline.search import (
    best_split,
    next_exhaustive,
    next_in_pass,
    next_trial,
    pass_capacity,
    seeds,
    split_capacity,
    split_space,
)

TARGET = CameraTarget(fps=10, max_latency_ms=100)
RAN = (StageRan((), 2, 1, "f32"), StageRan((), 2, 1, "f32"))


def trial(split: Split, cameras: int, serves: bool, pass_number: int = 0, busy: bool = False) -> PipelineTrial:
    offered = cameras * 10
    latencies = np.full(offered if serves else offered // 2, 5.0)
    load = LoadTrial(cameras, 1.0, offered, 0 if serves else offered - latencies.size, latencies, np.array([]),
                     foreign_cpu=0.5 if busy else 0.0)
    return PipelineTrial(split, load, (), RAN, pass_number)


def drive(landscape: Callable[[Split], int], max_trials: int = 200) -> list[PipelineTrial]:
    space = split_space([True, True], cores=4)
    starts = seeds([StageSetting(4, 8), StageSetting(4, 8)], [3.0, 1.0], space, cores=4)
    trials: list[PipelineTrial] = []
    while (step := next_trial(trials, starts, space, TARGET, max_trials)) is not None:
        split, cameras = step
        trials.append(trial(split, cameras, cameras <= landscape(split)))
    return trials


def hill(split: Split) -> int:
    """Serves most with the first stage on 2 threads x 2 streams x 4 requests, the second on 2 threads, decode 2."""
    if split.stages[0].default or split.stages[0].threads == 0:
        return 2
    first, second = split.stages
    score = 12 - abs(first.threads - 2) - abs(first.streams - 2) - abs(first.nireq - 4) - abs(second.threads - 2)
    return max(score - abs(split.decode_threads - 2), 1)


def test_seeds_are_default_solo_then_cores_shared_by_cost() -> None:
    space = split_space([True, True], cores=4)
    starts = seeds([StageSetting(4, 8), StageSetting(2, 4)], [3.0, 1.0], space, cores=4)
    assert [origin for _, origin in starts] == [Origin.DEFAULT, Origin.SOLO, Origin.SHARED]
    default, solo, shared = (split for split, _ in starts)
    assert default.stages == (OPENVINO_DEFAULT, OPENVINO_DEFAULT) and default.decode_threads == 4
    assert solo.stages == (StageSetting(4, 8), StageSetting(2, 4))
    threads = [s.threads for s in shared.stages]
    assert threads[0] > threads[1] and sum(threads) <= 4  # the costlier stage gets more, the cores are not exceeded
    assert shared.decode_threads == 1


@pytest.mark.parametrize("cores", [2, 4, 16])
def test_the_cores_shared_by_cost_give_the_decoder_its_share_on_any_box(cores: int) -> None:
    """The 16-core demo spent its first trials at one decode thread, the limit at 15 cameras there: a decoder costing
    half of a frame's work gets about half the cores, whatever the box has."""
    space = split_space([True, True], cores=cores)
    starts = seeds([StageSetting(2, 4)] * 2, [1.0, 1.0], space, cores=cores, decode_cost=2.0)
    shared = next(split for split, origin in starts if origin is Origin.SHARED)
    assert shared.decode_threads == max(1, cores // 2)
    assert all(s.threads <= cores for s in shared.stages)


def test_the_climb_finds_the_top_of_a_hill_in_far_fewer_trials_than_every_split() -> None:
    trials = drive(hill)
    best = best_split(trials, TARGET)
    assert best is not None
    top = max(hill(s) for s in split_space([True, True], cores=4).splits())
    assert split_capacity([t for t in trials if t.split == best], TARGET) == top
    assert len(trials) < len(split_space([True, True], cores=4).splits()) / 3


def test_the_answer_is_confirmed_and_each_neighbour_of_it_failed_at_one_camera_more() -> None:
    trials = drive(hill)
    best = best_split(trials, TARGET)
    assert best is not None
    top = split_capacity([t for t in trials if t.split == best], TARGET)
    assert sum(t.split == best and t.load.cameras == top for t in trials) >= SEARCH_WALK.repeats
    space = split_space([True, True], cores=4)
    for neighbour in space.neighbours(best, RAN):
        tried = [t for t in trials if t.split == neighbour]
        assert tried, f"neighbour {neighbour} not tried"
        assert split_capacity(tried, TARGET) <= top


def test_max_trials_ends_the_climb_but_not_the_starting_points() -> None:
    starts = seeds([StageSetting(4, 8)] * 2, [3.0, 1.0], split_space([True, True], 4), 4)
    seeded = {split for split, _ in starts}
    trials = drive(hill, max_trials=2)
    assert seeded <= {t.split for t in trials}  # each starting point searched whole
    assert sum(t.split not in seeded for t in trials) == 2  # then two trials of the climb, no more
    assert next_trial(trials, starts, split_space([True, True], 4), TARGET, 2) is None
    assert len(drive(hill, max_trials=0)) == sum(t.split in seeded for t in trials)


def test_a_neighbour_failing_on_a_busy_host_is_tried_again() -> None:
    space = split_space([True, True], cores=2)
    starts = seeds([StageSetting(2, 4), StageSetting(2, 4)], [1.0, 1.0], space, cores=2)
    trials: list[PipelineTrial] = []
    while (step := next_trial(trials, starts, space, TARGET, 100)) is not None:
        split, cameras = step
        if split not in {s for s, _ in starts}:
            trials.append(trial(split, cameras, False, busy=True))
            break
        trials.append(trial(split, cameras, cameras <= 3))
    step = next_trial(trials, starts, space, TARGET, 100)
    assert step == (trials[-1].split, trials[-1].load.cameras)


def test_a_pass_walks_up_from_the_search_figure_while_it_serves() -> None:
    split = Split((StageSetting(1, 2, 1),), 1)
    loads: list[LoadTrial] = []
    while (cameras := next_in_pass(loads, 3, TARGET)) is not None:
        loads.append(trial(split, cameras, cameras <= 5).load)
    assert [t.cameras for t in loads] == [3, 4, 6, 5]  # steps of 1, 2, then bisection
    assert pass_capacity(loads, TARGET) == 5
    loads = []
    while (cameras := next_in_pass(loads, 3, TARGET)) is not None:
        loads.append(trial(split, cameras, cameras <= 40).load)
    assert pass_capacity(loads, TARGET) == 40 and len(loads) <= 12  # far from the search's figure, still few


def test_a_pass_walks_down_while_it_fails_and_stops_at_one_camera() -> None:
    split = Split((StageSetting(1, 2, 1),), 1)
    loads: list[LoadTrial] = []
    while (cameras := next_in_pass(loads, 4, TARGET)) is not None:
        loads.append(trial(split, cameras, cameras <= 2).load)
    assert [t.cameras for t in loads] == [4, 2, 3]  # halving, then bisection
    assert pass_capacity(loads, TARGET) == 2
    loads = []
    while (cameras := next_in_pass(loads, 30, TARGET)) is not None:
        loads.append(trial(split, cameras, cameras <= 7).load)
    assert pass_capacity(loads, TARGET) == 7 and len(loads) <= 10
    loads = []
    while (cameras := next_in_pass(loads, 2, TARGET)) is not None:
        loads.append(trial(split, cameras, False).load)
    assert [t.cameras for t in loads] == [2, 1] and pass_capacity(loads, TARGET) == 0


def test_neighbours_stay_in_the_space_and_move_one_step() -> None:
    space = split_space([True, False], cores=4)  # a CPU stage and a GPU stage
    split = Split((StageSetting(2, 4, 2), StageSetting(1, 2)), 2)
    found = space.neighbours(split)
    assert split not in found
    for n in found:
        assert all(s in stage.settings() for s, stage in zip(n.stages, space.stages, strict=True))
        changed = sum(a != b for a, b in zip(n.stages, split.stages, strict=True)) + (n.decode_threads !=
                                                                                       split.decode_threads)
        assert changed == 1
    assert all(n.stages[1].threads == 0 for n in found)  # a GPU stage takes no thread count
    # OpenVINO default steps from what it ran
    from_default = space.neighbours(Split((OPENVINO_DEFAULT, StageSetting(1, 2)), 2),
                                    (StageRan((), 8, 4, "f32"), StageRan((), 2, 1, "f32")))
    assert all(n.stages[0].threads == 4 for n in from_default if n.stages[1] == StageSetting(1, 2)
               and n.decode_threads == 2 and n.stages[0].threads == 4)


def test_the_exhaustive_search_searches_every_split_whole_and_finds_the_top() -> None:
    space = split_space([True, True], cores=2)
    trials: list[PipelineTrial] = []
    while (step := next_exhaustive(trials, space, TARGET)) is not None:
        split, cameras = step
        trials.append(trial(split, cameras, cameras <= hill(split)))
    assert {t.split for t in trials} == set(space.splits())
    best = best_split(trials, TARGET)
    assert best is not None and hill(best) == max(hill(s) for s in space.splits())


def test_no_starting_point_serving_one_camera_ends_the_search() -> None:
    trials = drive(lambda split: 0)
    assert {t.load.cameras for t in trials} == {1}
    assert len({t.split for t in trials}) == 3


def load_at(cameras: int, serves: bool, busy: bool = False) -> LoadTrial:
    return trial(Split((OPENVINO_DEFAULT,), 1), cameras, serves, 1, busy).load


def test_the_rate_search_bisects_the_highest_rate_held_at_the_cameras_served_to_its_precision() -> None:
    limit = 10 * 1.13  # the split holds up to 11.3 FPS per camera at 4 cameras
    tried: list[tuple[float, LoadTrial]] = []
    while (fps := next_rate(tried, 4, TARGET)) is not None:
        tried.append((fps, load_at(4, fps <= limit)))
        assert len(tried) < 20
    assert tried[0][0] == pytest.approx(12.5)  # first the frames a second of one camera more: 5 x 10 over 4
    held = held_rate(tried, TARGET)
    failed = min(f for f, t in tried if not t.serves(TARGET))
    assert held <= limit < failed
    assert failed - held <= RATE_PRECISION * held


def test_the_rate_search_steps_up_doubling_while_it_serves_and_stops_at_its_ceiling() -> None:
    tried: list[tuple[float, LoadTrial]] = []
    while (fps := next_rate(tried, 2, TARGET)) is not None:
        tried.append((fps, load_at(2, True)))
    rates = [f for f, _ in tried]
    assert rates[:3] == pytest.approx([15.0, 25.0, 45.0])  # 5, then 15, 35 above the target's 10: steps that double
    assert rates[-1] == MOST_RATE * TARGET.fps
    assert held_rate(tried, TARGET) == MOST_RATE * TARGET.fps


def test_the_rate_search_tries_a_rate_failed_on_a_busy_host_again_and_counts_none_at_no_camera() -> None:
    assert next_rate([(12.5, load_at(4, False, busy=True))], 4, TARGET) == 12.5
    assert next_rate([], 0, TARGET) is None
    assert held_rate([(12.5, load_at(4, False, busy=True))], TARGET) == TARGET.fps
