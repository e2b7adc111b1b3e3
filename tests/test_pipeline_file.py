"""The pipeline file: what it reads, and the one line each mistake gets."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pipeline_models import tiny_classifier, tiny_clip, tiny_detector

from ov_tuner.commandline.flags import parse_precisions
from ov_tuner.devices.strings import parse_devices
from ov_tuner.errors import BadInputError, ResultsFileError
from ov_tuner.schema import Arrival, Precision
from ov_tuner.workloads.pipeline.file import read_pipeline
from ov_tuner.workloads.pipeline.schema import DetectionCount


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pipeline")
    tiny_detector(folder / "det.xml")
    tiny_classifier(folder / "cls.xml")
    tiny_clip(folder / "clip.avi")
    return folder


GOOD = """
fps = 10
max_latency_ms = 150
percentile = 95
arrival = "poisson"

[video]
file = "clip.avi"

[[stage]]
name = "detect"
model = "det.xml"
every = 2

[[stage]]
name = "classify"
model = "cls.xml"
precision = "fp32"
per_detection = { output = "scores", threshold = 0.5, most = 4 }
"""


def write(folder: Path, text: str, name: str = "p.toml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


def one_line_error(path: Path) -> str:
    with pytest.raises(BadInputError) as e:
        read_pipeline(path)
    message = str(e.value)
    assert "\n" not in message
    return message


def test_a_pipeline_file_reads_paths_relative_to_itself(folder: Path) -> None:
    pipeline = read_pipeline(write(folder, GOOD)).pipeline
    detect, classify = pipeline.stages
    assert Path(detect.model) == folder / "det.xml" and detect.every == 2 and detect.precision is None
    assert detect.device == "CPU" and len(detect.model_sha256) == 64
    assert classify.precision is Precision.FP32
    assert classify.per_detection == DetectionCount("scores", 0.5, 4)
    assert (pipeline.video.file, pipeline.video.width, pipeline.video.height) == (str(folder / "clip.avi"), 160, 120)
    target = pipeline.target
    assert (target.fps, target.max_latency_ms, target.percentile, target.arrival) == (10, 150, 95, Arrival.POISSON)


def test_a_stage_gives_the_sizes_its_model_leaves_dynamic(folder: Path) -> None:
    text = GOOD.replace("every = 2", "every = 2\nshape = { image = [1, 3, 64, 64] }")
    detect = read_pipeline(write(folder, text)).pipeline.stages[0]
    assert detect.shape == (("image", (1, 3, 64, 64)),) and detect.shapes == {"image": [1, 3, 64, 64]}
    assert "shape must name inputs" in one_line_error(write(folder, GOOD.replace("every = 2", "shape = [1, 3]")))


def test_generated_frames_need_no_file(folder: Path) -> None:
    text = GOOD.replace('file = "clip.avi"', "size = [320, 240]")
    video = read_pipeline(write(folder, text)).pipeline.video
    assert (video.file, video.width, video.height) == (None, 320, 240)


@pytest.mark.parametrize(("change", "said"), [
    (("every = 2", "every = 2\nspeed = 3"), "unknown key 'speed'"),
    (('model = "det.xml"', 'model = "missing.xml"'), "missing.xml does not exist"),
    (('file = "clip.avi"', 'file = "nowhere.avi"'), "nowhere.avi does not exist"),
    (('precision = "fp32"', 'precision = "fp8"'), "precision: 'fp8' is not one of"),
    (("fps = 10", "fps = 0"), "fps must be a number above 0"),
    (('name = "classify"', 'name = "detect"'), "stage names must differ"),
    (("every = 2", "every = 2\nper_detection = { output = \"x\", threshold = 0.5, most = 2 }"),
     "no stage comes before it"),
])
def test_each_mistake_is_one_line_naming_it(folder: Path, change: tuple[str, str], said: str) -> None:
    assert said in one_line_error(write(folder, GOOD.replace(*change)))


def test_a_video_opencv_cannot_open_is_one_line(folder: Path) -> None:
    (folder / "notavideo.avi").write_text("this is text")
    assert "notavideo.avi" in one_line_error(write(folder, GOOD.replace("clip.avi", "notavideo.avi")))


def test_a_file_that_is_not_toml_is_one_line(folder: Path) -> None:
    assert "not a TOML file" in one_line_error(write(folder, "fps = = 3"))


def why(message: str) -> str:
    """What a parser's line says is wrong, without where it was written and the example that follows."""
    return message.split(": ", 1)[1].split("; ")[0]


@pytest.mark.parametrize(("key", "value", "as_flag"), [
    ("device", "AUTO:", lambda: parse_devices(["AUTO:"])),
    ("device", "CPU,,GPU", lambda: parse_devices(["CPU,,GPU"])),
    ("precision", "fp8", lambda: parse_precisions("fp8")),
    ("precision", "auto,fp16", lambda: parse_precisions("auto,fp16")),
])
def test_a_stages_device_and_precision_are_read_as_the_flags_are(folder: Path, key: str, value: str,
                                                                  as_flag: Callable[[], object]) -> None:
    """The same mistake gets the --device or --precision parser's line, naming the stage and its key, not a flag."""
    with pytest.raises(BadInputError) as flag:
        as_flag()
    text = GOOD.replace('precision = "fp32"', f'precision = "fp32"\n{key} = "{value}"' if key == "device" else
                        f'precision = "{value}"')
    said = one_line_error(write(folder, text))
    assert said.startswith(f"p.toml [[stage]] 2 {key}") and "--" not in said
    assert why(said) == why(str(flag.value))


def test_a_stage_runs_one_device_and_one_precision(folder: Path) -> None:
    two = GOOD.replace('precision = "fp32"', 'precision = "fp32"\ndevice = "CPU,GPU"')
    assert "device: a stage runs one configuration, on one device, not CPU, GPU" in one_line_error(write(folder, two))
    both = GOOD.replace('precision = "fp32"', 'precision = "fp32,fp16"')
    assert 'give one precision, e.g. precision = "int8", or auto' in one_line_error(write(folder, both))
    virtual = GOOD.replace('precision = "fp32"', 'device = "auto:cpu"')
    assert read_pipeline(write(folder, virtual)).pipeline.stages[1].device == "AUTO:CPU"


def test_a_stages_answer_of_another_model_is_refused_when_read(folder: Path, swept_db: Path) -> None:
    """The sweep is of the tiny model, the stage runs the detector: its answer would run on another model."""
    text = GOOD.replace('model = "det.xml"', f'model = "det.xml"\nanswer = "{swept_db}"')
    with pytest.raises(ResultsFileError) as refused:
        read_pipeline(write(folder, text))
    said = str(refused.value)
    assert said.startswith(f"p.toml [[stage]] 1 answer {swept_db} was measured on another model") and "\n" not in said
    assert "det.xml" in said and "tiny_conv" in said


def test_a_stages_answer_of_its_own_model_gives_its_best_batch_one_point(folder: Path, swept_db: Path,
                                                                         tiny_model: Path) -> None:
    text = GOOD.replace('model = "det.xml"', f'model = "{tiny_model}"\nanswer = "{swept_db}"')
    read = read_pipeline(write(folder, text))
    first, second = read.answers
    assert second is None and first is not None and first.results == swept_db
    assert [p.config.batch for p in first.batch_one] == [1]
