"""The pipeline's open-loop engine on the real runtime: the tiny detector and classifier on a real clip, each camera
its own decoder; what each stage ran, drops under overload, and nothing left running after a trial."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import openvino as ov
import pytest
from pipeline_models import ABOVE, tiny_classifier, tiny_clip, tiny_detector

from ov_tuner.errors import BadInputError
from ov_tuner.measure.openloop import Arrivals
from ov_tuner.schema import CameraTarget, LoadTrial
from ov_tuner.workloads.pipeline import video as video_module
from ov_tuner.workloads.pipeline.schema import DECODE, DetectionCount, PipelineStage, StageTime, VideoSource
from ov_tuner.workloads.pipeline.trial import StageRunner, run_pipeline_trial
from ov_tuner.workloads.pipeline.video import open_feeds, video_size

LIGHT = Arrivals(cameras=2, fps=10, seconds=1.0)
# A generous budget: a camera may keep 11 frames in flight, so a light load drops none even on a busy host.
TARGET = CameraTarget(fps=10, max_latency_ms=1000)
LEAD_IN_S = 0.3
DETECTOR = PipelineStage("detector", "detector.xml")
CLASSIFIER = PipelineStage("classifier", "classifier.xml", per_frame=2)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> tuple[ov.CompiledModel, ov.CompiledModel]:
    """The detector and the classifier, one stream and one thread each: light on a 2-core host."""
    folder = tmp_path_factory.mktemp("pipeline-models")
    core, config = ov.Core(), {"NUM_STREAMS": "1", "INFERENCE_NUM_THREADS": "1"}
    return (core.compile_model(tiny_detector(folder / "detector.xml"), "CPU", config),
            core.compile_model(tiny_classifier(folder / "classifier.xml"), "CPU", config))


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> VideoSource:
    path = tiny_clip(tmp_path_factory.mktemp("pipeline-clip") / "clip.avi")
    return VideoSource(str(path), *video_size(path))


def chain(compiled: tuple[ov.CompiledModel, ov.CompiledModel], detector: PipelineStage = DETECTOR,
          classifier: PipelineStage = CLASSIFIER, nireq: int = 2) -> list[StageRunner]:
    return [StageRunner(detector, compiled[0], nireq), StageRunner(classifier, compiled[1], nireq)]


def trial(runners: Sequence[StageRunner], video: VideoSource, arrivals: Arrivals = LIGHT,
          budget_ms: float = TARGET.max_latency_ms) -> tuple[LoadTrial, dict[str, StageTime]]:
    load, stages = run_pipeline_trial(runners, video, 1, arrivals, CameraTarget(arrivals.fps, budget_ms), LEAD_IN_S)
    assert [s.name for s in stages] == [DECODE, *(r.stage.name for r in runners)]
    assert load.completed + load.dropped == load.offered
    assert all(0 <= s.utilisation <= 1.05 for s in stages), stages
    return load, {s.name: s for s in stages}


def test_a_light_load_runs_every_frame_through_the_chain(compiled, clip) -> None:
    threads = set(threading.enumerate())
    load, stages = trial(chain(compiled), clip)
    assert clip.width == 160 and clip.height == 120
    assert load.offered == LIGHT.cameras * LIGHT.fps * LIGHT.seconds
    assert load.dropped == 0 and load.service_ms.size == 0
    assert np.all(load.latencies_ms >= 0)
    assert stages[DECODE].runs == stages["detector"].runs == load.completed
    assert stages["classifier"].runs == 2 * stages["detector"].runs
    assert (stages[DECODE].slots, stages["detector"].slots, stages["classifier"].slots) == (1, 2, 2)
    assert set(threading.enumerate()) == threads


@pytest.mark.parametrize("most", [8, 2])
def test_every_other_frame_and_a_count_per_detection(compiled, clip, most: int) -> None:
    detector = PipelineStage("detector", "detector.xml", every=2)
    classifier = PipelineStage("classifier", "classifier.xml", per_detection=DetectionCount("scores", 0.5, most))
    load, stages = trial(chain(compiled, detector, classifier), clip)
    assert load.dropped == 0
    # Each camera's counted frames may start on an odd frame: half of them, to within one frame a camera.
    assert abs(2 * stages["detector"].runs - stages[DECODE].runs) <= LIGHT.cameras
    assert stages["classifier"].runs == min(ABOVE, most) * stages["detector"].runs > 0


def test_generated_frames_need_no_file(compiled) -> None:
    generated = VideoSource(None, 320, 240)
    frame = open_feeds(generated, 1)[0].read()
    assert frame.shape == (240, 320, 3) and frame.dtype == np.uint8
    arrivals = Arrivals(cameras=2, fps=10, seconds=1.0, poisson=True)
    load, stages = trial(chain(compiled), generated, arrivals)
    assert load.offered == arrivals.times().size and load.dropped == 0
    assert stages["classifier"].runs == 2 * stages[DECODE].runs


def test_a_video_opencv_cannot_open_is_one_line(compiled, tmp_path: Path) -> None:
    bad = tmp_path / "clip.avi"
    bad.write_text("not a video\n")
    with pytest.raises(BadInputError) as raised:
        run_pipeline_trial(chain(compiled), VideoSource(str(bad), 160, 120), 1, LIGHT, TARGET, LEAD_IN_S)
    assert "clip.avi" in str(raised.value) and "\n" not in str(raised.value)


def test_a_chain_checks_its_detection_counts(compiled, clip) -> None:
    counting = PipelineStage("classifier", "classifier.xml", per_detection=DetectionCount("boxes", 0.5, 4))
    with pytest.raises(BadInputError, match=r"'boxes'.*scores"):
        run_pipeline_trial(chain(compiled, classifier=counting), clip, 1, LIGHT, TARGET, LEAD_IN_S)
    with pytest.raises(ValueError, match="first stage"):
        run_pipeline_trial(chain(compiled, detector=counting), clip, 1, LIGHT, TARGET, LEAD_IN_S)


def test_overload_drops_or_queues_and_still_returns(compiled, clip) -> None:
    threads = set(threading.enumerate())
    heavy = PipelineStage("classifier", "classifier.xml", per_frame=8)
    light, _ = trial(chain(compiled, classifier=heavy, nireq=1), clip)
    load, stages = trial(chain(compiled, classifier=heavy, nireq=1), clip, Arrivals(cameras=40, fps=30, seconds=1.0),
                         budget_ms=100)
    assert load.dropped > 0 or load.percentile_ms(99) > light.percentile_ms(99)
    # Every request started for a counted frame completed: its callback counted it.
    assert stages[DECODE].runs == stages["detector"].runs == load.completed
    assert stages["classifier"].runs == 8 * load.completed
    assert set(threading.enumerate()) == threads


def test_a_failing_feed_stops_every_thread(compiled, clip, monkeypatch: pytest.MonkeyPatch) -> None:
    threads, opencv_threads = set(threading.enumerate()), cv2.getNumThreads()
    reads = iter(range(5))

    def read(feed: video_module.CameraFeed) -> np.ndarray:
        if next(reads, None) is None:
            raise OSError("the camera went away")
        return np.zeros((120, 160, 3), np.uint8)

    monkeypatch.setattr(video_module.CameraFeed, "read", read)
    with pytest.raises(OSError, match="went away"):
        trial(chain(compiled), clip)
    assert set(threading.enumerate()) == threads
    assert cv2.getNumThreads() == opencv_threads
