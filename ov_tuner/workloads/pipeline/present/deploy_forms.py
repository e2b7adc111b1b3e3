"""A pipeline's deploy forms, the map its registration hands `recommend --format` (present/deploy.Forms): its Python
script, DL Streamer line and OVMS config (forms.py), and JSON (answer_json.py), each with the commands that make the
model files its stages load first."""

from __future__ import annotations

import json
from collections.abc import Callable

from ov_tuner.present.deploy import Form, Forms, Where
from ov_tuner.present.deploy_format import DeployFormat
from ov_tuner.workloads.pipeline.answer_record import PipelineAnswer
from ov_tuner.workloads.pipeline.present.answer_json import pipeline_answer_json
from ov_tuner.workloads.pipeline.present.forms import (
    pipeline_dlstreamer,
    pipeline_made_first,
    pipeline_ovms,
    pipeline_python,
)


def _pipeline(build: Callable[[PipelineAnswer], str]) -> Callable[[PipelineAnswer, Where], Form]:
    """A pipeline's form, and the commands that make the model files its stages load first."""
    return lambda answer, where: Form(build(answer), pipeline_made_first(answer))


# A pipeline's.
PIPELINE_FORMS: Forms = {
    DeployFormat.PYTHON: _pipeline(pipeline_python), DeployFormat.OVMS: _pipeline(pipeline_ovms),
    DeployFormat.DLSTREAMER: _pipeline(pipeline_dlstreamer),
    DeployFormat.JSON: _pipeline(lambda a: json.dumps(pipeline_answer_json(a), indent=2)),
}
