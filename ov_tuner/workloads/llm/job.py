"""The LLM job: check everything that can be checked before measuring (the output file, the model, the device, the
plugin values, the weights and instances asked for, the load against the model's context), make the compressed
weights asked for, measure the host's roofline once, then drive the LLM's workload (ov_tuner.workloads.llm.workload)
on the one driver. A rerun of the same command resumes from what is stored."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import openvino as ov

from ov_tuner.devices.environment import environment
from ov_tuner.devices.modelfile import ModelSource
from ov_tuner.devices.roofline import matmul_gflops, memory_gbs
from ov_tuner.devices.runtime import Runtime
from ov_tuner.engine.budget import TimeBudget
from ov_tuner.engine.driver import Watch, drive
from ov_tuner.errors import BadInputError
from ov_tuner.quantize.nncf_backend import require_nncf
from ov_tuner.store.destinations import results_file
from ov_tuner.workloads.llm.answer_record import LlmAnswer
from ov_tuner.workloads.llm.fits import check_load_fits
from ov_tuner.workloads.llm.folders import llm_weights_folder
from ov_tuner.workloads.llm.ir import served_model
from ov_tuner.workloads.llm.kept import KeptPipelines
from ov_tuner.workloads.llm.measured import Roofline
from ov_tuner.workloads.llm.model_file import check_plugin_values, genai_version, read_llm
from ov_tuner.workloads.llm.results_file import LlmStore
from ov_tuner.workloads.llm.schema import (
    DRAFT_INPUT,
    INSTANCES_INPUT,
    WEIGHTS_INPUT,
    WRITER,
    LlmJob,
    LlmLoad,
    LlmModel,
    LlmSpace,
)
from ov_tuner.workloads.llm.weights import WEIGHTS, compressed_folder, model_weight_bytes
from ov_tuner.workloads.llm.workload import LlmSpec, LlmWorkload, Seen

# The tokens a draft model proposes a step: OVMS's default where a request sets none (GenAI's samples use 5 too).
DRAFT_TOKENS = 5


def run_llm(spec: LlmSpec, seen: Seen, stop: threading.Event | None = None,
            making: Callable[[str], None] = lambda weights: None, time_budget: TimeBudget | None = None,
            watch: Watch | None = None) -> LlmAnswer:
    """Search, rounds, walks; the answer from everything stored. Raises one line where the model, the device, the
    prompts or the budget cannot be worked with: before anything is measured, or (a budget nothing meets) after the
    search, its trials kept. `time_budget`: the run's, shared by its phases (ov_tuner.engine.budget); `watch` is
    told the plan and the clock."""
    given = [Path(f) for f in (spec.load.prompts_file, spec.load.conversations_file) if f]
    results_file(spec.out, inputs=(spec.model, *given))  # before the model is read: seconds for a large one
    spec = replace(spec, space=spec.space.for_traffic(spec.load))
    genai = genai_version()
    model = read_llm(spec.model)
    runtime = Runtime()
    runtime.resolve_devices((spec.device,))
    check_plugin_values(spec.device, spec.space)
    _check_weights(spec.space)
    _check_instances(spec.space, spec.load)
    served = served_model(model)
    check_load_fits(model, Path(served.path), spec.load)
    if spec.draft is not None:
        drafted = (_draft_folder(spec.draft, model), DRAFT_TOKENS)
        spec = replace(spec, space=replace(spec.space, drafts=((None, 0), drafted)))
    folders = _weights(served, spec.space, making)
    job = LlmJob(model, spec.device, spec.load, spec.budget, genai, spec.min_agreement)
    with LlmStore(spec.out) as store, KeptPipelines() as pipelines:
        store.claim(environment(ModelSource(Path(model.path), model.sha256)), WRITER)
        store.claim_llm(job)
        if store.llm_roofline() is None:
            store.add_llm_roofline(_roofline(runtime.core, spec, folders))
        workload = LlmWorkload(spec, job, store, folders, seen, pipelines)
        drive(workload, stop, time_budget, watch)
        return workload.answer()


def _draft_folder(draft: Path, model: LlmModel) -> str:
    """The draft model's GenAI folder (a GGUF's: the one GenAI converts it to), once it is known to share the
    model's vocabulary: its proposals are token ids the model verifies."""
    found = read_llm(draft)
    if found.vocab and model.vocab and found.vocab != model.vocab:
        raise BadInputError(f"{DRAFT_INPUT} {draft}: its vocabulary has {found.vocab} tokens and the model's "
                            f"{model.vocab}; give a draft model of the same tokenizer")
    return served_model(found).path


def _check_weights(space: LlmSpace) -> None:
    """The weights asked for are ones ov-tuner makes, with NNCF installed."""
    asked = [w for w in space.weights if w is not None]
    unknown = [w for w in asked if w not in WEIGHTS]
    if unknown:
        raise BadInputError(f"{WEIGHTS_INPUT} {unknown[0]}: give default, int8 or int4")
    if asked:
        require_nncf()


def _check_instances(space: LlmSpace, load: LlmLoad) -> None:
    """Several instances serve users (a closed loop, where spreading users is what a least-loaded dispatcher does),
    at least one user and one core each."""
    most = max(space.instances)
    if most > 1 and not load.closed:
        raise BadInputError(f"{INSTANCES_INPUT} {most} serves users: give a number of users, not a rate")
    cores = len(os.sched_getaffinity(0))
    if most > cores:
        raise BadInputError(f"{INSTANCES_INPUT} {most}: each instance is pinned to cores of its own and this process "
                            f"may use {cores}; give at most {cores}")
    if most > load.users and load.closed:
        raise BadInputError(f"{INSTANCES_INPUT} {most}: each instance serves users of its own; give at least "
                            f"{most} users")


def _weights(model: LlmModel, space: LlmSpace, making: Callable[[str], None]) -> dict[str | None, LlmModel]:
    """The model each weights value runs: `model` (a folder: a GGUF's is the one GenAI converts it to), or that
    folder compressed (made now where the cache lacks it)."""
    folders: dict[str | None, LlmModel] = {None: model}
    for weights in (w for w in space.weights if w is not None):
        if not llm_weights_folder(model.sha256, weights).is_dir():
            making(weights)
        folders[weights] = replace(model, path=str(compressed_folder(model, weights)))
    return folders


def _roofline(core: ov.Core, spec: LlmSpec, folders: dict[str | None, LlmModel]) -> Roofline:
    """What bounds decode here: the host's memory bandwidth, its matmul in each inference precision searched, the
    plugin's own KV cache precision, and the bytes of each weights value's model file."""
    try:
        kv = core.get_property(spec.device, "KV_CACHE_PRECISION").get_type_name()
    except RuntimeError:  # a plugin that does not say: GenAI's KV cache is then f16
        kv = "f16"
    matmul = tuple((asked, *timed) for asked in spec.space.inference_precisions
                   if (timed := _matmul(core, spec.device, asked)) is not None)
    return Roofline(memory_gbs(), matmul, kv, tuple((w, model_weight_bytes(Path(m.path))) for w, m in folders.items()))


def _matmul(core: ov.Core, device: str, precision: str | None) -> tuple[str, float] | None:
    """The matmul's precision and GFLOP/s, None where the device cannot compile it so (the answer then gives no
    compute bound for that precision: the trials say what the setting itself does)."""
    try:
        return matmul_gflops(core, device, precision)
    except RuntimeError:
        return None
