"""An LLM's deploy forms, the map its registration hands `recommend --format` (present/deploy.Forms): the Python
script (forms.py), OVMS's graph and the steps that serve it, a container's resources (servers.py), and JSON
(answer_json.py)."""

from __future__ import annotations

import json
from collections.abc import Callable

from ov_tuner.errors import BadInputError
from ov_tuner.present.deploy import Form, Forms, Where, run_step
from ov_tuner.present.deploy_format import DeployFormat
from ov_tuner.workloads.llm.answer_record import LlmAnswer
from ov_tuner.workloads.llm.present.answer_json import llm_answer_json
from ov_tuner.workloads.llm.present.forms import llm_python
from ov_tuner.workloads.llm.present.servers import OVMS_GRAPH, llm_kubernetes, llm_ovms
from ov_tuner.workloads.llm.present.words_report import NO_LLM_ANSWER

Builder = Callable[[LlmAnswer, Where], Form]


def _of_its_setting(build: Builder) -> Builder:
    """A form that deploys the answer's setting; where no setting met the budget, one line saying there is none (the
    JSON form, which keeps what was measured, comes either way)."""

    def form(answer: LlmAnswer, where: Where) -> Form:
        if answer.answer is None:
            raise BadInputError(f"{NO_LLM_ANSWER} in the rounds, so there is no setting to write as a form; the json "
                                "form keeps what was measured, and `ov-tuner show` how close each setting came")
        return build(answer, where)

    return form


def _box(answer: LlmAnswer, where: Where) -> Form:
    """An LLM's container resources: the box its answer was measured in (GenAI runs in the serving process), a
    replica's share where it ran as several instances."""
    return Form(llm_kubernetes(answer))


def _llm_python(answer: LlmAnswer, where: Where) -> Form:
    """The script, and the step that runs it where it is written to a file (the model is the user's own)."""
    return Form(llm_python(answer).rstrip("\n"), (), run_step("python3", where))


def _llm_ovms(answer: LlmAnswer, where: Where) -> Form:
    """OVMS's graph.pbtxt (written to -o FILE), and the steps that copy it beside the model, list it in config.json
    and start the server."""
    graph, steps = llm_ovms(answer, where.written_to or OVMS_GRAPH)
    return Form(graph, (), steps)


# An LLM's.
LLM_FORMS: Forms = {
    DeployFormat.PYTHON: _of_its_setting(_llm_python), DeployFormat.OVMS: _of_its_setting(_llm_ovms),
    DeployFormat.KUBERNETES: _of_its_setting(_box),
    DeployFormat.JSON: lambda a, where: Form(json.dumps(llm_answer_json(a), indent=2)),
}
