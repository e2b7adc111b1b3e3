"""Two or more pipelines' results files side by side (the hosts of a fleet, two OpenVINO versions, before and after a
change): what differs between where they were measured, and what each deploys and the cameras it serves.

Why the same pipeline and target are required: cameras served depend on the models, the video and the frame rate and
latency asked as much as on the split, so files of other pipelines would compare the pipelines. Each file's cameras
carry the interval its own passes gave; across hosts no pass was side by side, so no difference is stated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from ov_tuner.analyse.compare import differing_fields
from ov_tuner.errors import BadInputError
from ov_tuner.workloads.pipeline.answer import pipeline_answer
from ov_tuner.workloads.pipeline.answer_record import PipelineAnswer
from ov_tuner.workloads.pipeline.results_file import StoredPipeline


@dataclass(frozen=True)
class PipelineComparison:
    paths: tuple[str, ...]
    answers: tuple[PipelineAnswer, ...]
    differences: tuple[tuple[str, tuple[str, ...]], ...]  # the environment's fields that differ, each file's value


def compare_pipelines(stored: Sequence[StoredPipeline]) -> PipelineComparison:
    """Each file's answer; files of other pipelines or targets refused in one line."""
    if len(stored) < 2:
        raise BadInputError("compare: give two or more results files")
    if len({(s.pipeline.stages, s.pipeline.video, s.pipeline.target) for s in stored}) > 1:
        raise BadInputError(f"compare: the files tuned different pipelines or targets "
                            f"({', '.join(str(s.path) for s in stored)}); compare files of one pipeline file")
    differences = differing_fields([asdict(s.environment) for s in stored])
    answers = [(s.path, pipeline_answer(s)) for s in stored]
    found = tuple(a for _, a in answers if a is not None)
    if len(found) < len(answers):
        empty = next(path for path, a in answers if a is None)
        raise BadInputError(f"compare: {empty} holds no pipeline trial yet: run `ov-tuner pipeline` into it first")
    return PipelineComparison(tuple(str(s.path) for s in stored), found, differences)
