"""The LLM workload: the search over scheduler and plugin settings under the users' load, then rounds side by side
of the fastest settings within the budget against GenAI left alone, on the rounds engine (ov_tuner.search.rounds),
then the walk to the most users the answer and each baseline serve within the budget (ov_tuner.workloads.llm.users).
Every trial is stored as it ends; a rerun of the same command resumes (the search skips what is stored, the rounds
and walks go on from what they stored); Ctrl-C stops after the trial under way.

Every trial runs in a process of its own (ov_tuner.workloads.llm.process), builds a fresh pipeline and sends the same
requests (drawn from the load's seed), so settings are compared on the same work; a pipeline's prefix cache dies
with it, so no trial is helped by another's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ov_tuner.devices.environment import environment
from ov_tuner.devices.modelfile import ModelSource
from ov_tuner.devices.runtime import Runtime
from ov_tuner.errors import BadInputError, Input, ModelError
from ov_tuner.quantize.nncf_backend import require_nncf
from ov_tuner.quantize.paths import llm_weights_folder
from ov_tuner.search.rounds import RoundLimits, run_rounds
from ov_tuner.workloads.llm.agreement import agreements
from ov_tuner.workloads.llm.answer import (
    BASELINES,
    LlmAnswer,
    SettingFigures,
    contenders_of,
    held_back,
    llm_answer,
    round_table,
    searched_figures,
    walk_outcomes,
)
from ov_tuner.workloads.llm.model_file import check_plugin_values, genai_version, read_llm
from ov_tuner.workloads.llm.process import outputs_in_process, trial_in_process
from ov_tuner.workloads.llm.prompts import read_prompts
from ov_tuner.workloads.llm.results_file import LlmStore
from ov_tuner.workloads.llm.schema import (
    SCHEDULER_DEFAULT,
    LlmBudget,
    LlmFormat,
    LlmJob,
    LlmLoad,
    LlmModel,
    LlmSetting,
    LlmSpace,
    LlmTrial,
    StoredLlm,
)
from ov_tuner.workloads.llm.users import MOST_RATE_FACTOR, MOST_USERS, next_load
from ov_tuner.workloads.llm.weights import WEIGHTS, compressed_folder


@dataclass(frozen=True)
class LlmSpec:
    """An `ov-tuner llm` run: the model, where its trials go, the device, the load, the budget, what is searched,
    the rounds (passes at most; 0: none), how many of the search's best go to them besides the baselines, and whether
    to walk to the most load (users, or requests a second) the answer and the baselines serve within the budget (with
    a budget), up to `most_users` users, or `most_rate` requests a second (None: MOST_RATE_FACTOR times the rate
    given)."""

    model: Path
    out: Path
    device: str = "CPU"
    load: LlmLoad = field(default_factory=LlmLoad)
    budget: LlmBudget = field(default_factory=LlmBudget)
    space: LlmSpace = field(default_factory=LlmSpace)
    rounds: int = 4
    contenders: int = 2
    walk: bool = True
    most_users: int = MOST_USERS
    most_rate: float | None = None  # None: MOST_RATE_FACTOR times the rate given
    min_agreement: float = 0.9


# Told of each trial as it is stored.
Seen = Callable[[LlmTrial], None]


def run_llm(spec: LlmSpec, seen: Seen, stop: threading.Event | None = None,
            making: Callable[[str], None] = lambda weights: None) -> LlmAnswer:
    """Search, rounds, walks; the answer from everything stored. Raises one line where the model, the device, the
    prompts or the budget cannot be worked with: before anything is measured, or (a budget nothing meets) after the
    search, its trials kept."""
    genai = genai_version()
    model = read_llm(spec.model)
    Runtime().resolve_devices((spec.device,))
    check_plugin_values(spec.device, spec.space)
    if spec.load.prompts_file:
        read_prompts(Path(spec.load.prompts_file))
    _check_weights(model, spec.space)
    job = LlmJob(model, spec.device, spec.load, spec.budget, genai, spec.min_agreement)
    stopped = stop.is_set if stop is not None else (lambda: False)
    with LlmStore(spec.out) as store:
        store.claim(environment(ModelSource(Path(model.path), model.sha256)))
        store.claim_llm(job)
        folders = _weights(model, spec.space, making)

        def measure(setting: LlmSetting, number: int | None = None, at: float | None = None) -> LlmTrial:
            """One trial at the job's load, or (a walk's) at `at` users or requests a second."""
            users, rate = (None, None) if at is None else (int(at), None) if spec.load.closed else (None, at)
            load = spec.load if at is None else replace(spec.load, users=users or 0, rate=rate or spec.load.rate)
            trial = replace(trial_in_process(folders[setting.weights], spec.device, setting, load), round=number,
                            users=users, rate=rate)
            if setting == SCHEDULER_DEFAULT and trial.error and not store.llm_trials():
                raise ModelError(f"{spec.device} cannot run {model.path} with GenAI: {trial.error}")
            store.add_llm_trial(trial)
            seen(trial)
            return trial

        def stored() -> StoredLlm:
            return StoredLlm(str(spec.out), store.environment(), job, tuple(store.llm_trials()),
                             tuple(store.llm_outputs()))

        _search(spec, store, measure, stopped)
        searched = searched_figures(store.llm_trials(), spec.budget)
        if not any(f.meets for f in searched) and not stopped():
            raise BadInputError(_missed(spec.budget, searched))
        _outputs(spec, folders, store, searched, stopped)
        if spec.rounds >= 2 and not stopped():
            held = held_back(agreements(store.llm_outputs()), job.min_agreement)
            _rounds(spec, store, contenders_of(searched, spec.contenders, held), searched, measure, stop)
        answer = llm_answer(stored())
        if spec.walk and spec.budget.bounded and answer.answer is not None and not stopped():
            walked = [answer.answer.setting, *([answer.fastest.setting] if answer.fastest else []), *BASELINES]
            for setting in dict.fromkeys(walked):
                _walk(spec, store, setting, measure, stopped)
        return llm_answer(stored())


Measure = Callable[..., LlmTrial]


def _search(spec: LlmSpec, store: LlmStore, measure: Measure, stopped: Callable[[], bool]) -> None:
    """The baselines, then every setting of the space, each once; a resumed run skips what is stored."""
    tried = {t.setting for t in store.llm_trials() if t.searched}
    for setting in dict.fromkeys([*BASELINES, *spec.space.settings()]):
        if stopped():
            return
        if setting not in tried:
            measure(setting)


def _check_weights(model: LlmModel, space: LlmSpace) -> None:
    """The weights asked for are ones ov-tuner makes, of a model it can make them of, with NNCF installed."""
    asked = [w for w in space.weights if w is not None]
    unknown = [w for w in asked if w not in WEIGHTS]
    if unknown:
        raise BadInputError(f"{Input.WEIGHTS} {unknown[0]}: give default, int8 or int4")
    if asked and model.format is LlmFormat.GGUF:
        raise BadInputError(f"{Input.WEIGHTS} {asked[0]}: a GGUF's weights are its own (llama.cpp's llama-quantize "
                            "makes Q8_0 or Q4_K files): give a GenAI folder, or leave the weights as given")
    if asked:
        require_nncf()


def _weights(model: LlmModel, space: LlmSpace, making: Callable[[str], None]) -> dict[str | None, LlmModel]:
    """The model each weights value runs: as given, or its folder compressed (made now where the cache lacks it)."""
    folders: dict[str | None, LlmModel] = {None: model}
    for weights in (w for w in space.weights if w is not None):
        if not llm_weights_folder(model.sha256, weights).is_dir():
            making(weights)
        folders[weights] = replace(model, path=str(compressed_folder(model, weights)))
    return folders


def _outputs(spec: LlmSpec, folders: dict[str | None, LlmModel], store: LlmStore, searched: list[SettingFigures],
             stopped: Callable[[], bool]) -> None:
    """What the model says at GenAI's default and at each setting that met the budget, on the held-apart prompts,
    for what a setting changes in it (once each: a resumed run reads what is stored)."""
    read = {o.setting for o in store.llm_outputs()}
    for setting in dict.fromkeys([SCHEDULER_DEFAULT, *(f.setting for f in searched if f.meets)]):
        if stopped():
            return
        if setting not in read:
            store.add_llm_outputs(outputs_in_process(folders[setting.weights], spec.device, setting, spec.load,
                                                     folders[None]))


def _rounds(spec: LlmSpec, store: LlmStore, contenders: list[LlmSetting], searched: list[SettingFigures],
            measure: Measure, stop: threading.Event | None) -> None:
    """The contenders (the search's fastest within the budget that say enough alike, and the baselines) side by side
    on the rounds engine, going on from the passes stored."""
    met = {f.setting for f in searched if f.meets}

    def visit(position: int, number: int) -> float | None:
        trial = measure(contenders[position], number)
        return trial.tokens_per_s if trial.ok else None

    run_rounds(visit, [s in met for s in contenders], RoundLimits(min(3, spec.rounds), spec.rounds),
               done=round_table(store.llm_trials(), contenders), stop=stop)


def _walk(spec: LlmSpec, store: LlmStore, setting: LlmSetting, measure: Measure,
          stopped: Callable[[], bool]) -> None:
    """The walk to the most load `setting` serves within the budget (users, or requests a second), going on from the
    loads stored."""
    closed = spec.load.closed
    start = float(spec.load.users if closed else spec.load.rate)
    most = float(spec.most_users) if closed else spec.most_rate or start * MOST_RATE_FACTOR
    while not stopped():
        at = next_load(walk_outcomes(store.llm_trials(), setting, spec.budget), start, most, whole=closed)
        if at is None:
            return
        measure(setting, at=at)


def _missed(budget: LlmBudget, searched: list[SettingFigures]) -> str:
    """No setting met the budget: the one line that says so, with the best seen."""
    if not searched:
        return "no setting ran: every trial failed (ov-tuner show lists why)"
    best = min(searched, key=lambda f: f.at_budget[0])
    percentile = f"p{budget.percentile:g}"
    return (f"no setting met the budget ({percentile} TTFT {budget.ttft_ms or '-'} ms, TPOT {budget.tpot_ms or '-'} "
            f"ms) under this load; the closest gave TTFT {best.at_budget[0]:.1f} ms and TPOT "
            f"{best.at_budget[1]:.2f} ms at {percentile}: raise the budget or lower the load (fewer users or a lower "
            "rate)")
