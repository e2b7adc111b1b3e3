"""The LLM answer as the Python script people run: serving the model with `openvino_genai` at the setting that ran
(its SchedulerConfig fields and plugin properties; ov_tuner.workloads.llm.present.servers writes OVMS's graph, and
ov_tuner.workloads.llm.present.answer_json the record as JSON).

The tests run the script on the tiny model and compare the KV cache it allocated (the one figure GenAI reads back
that a property changes) with what ov-tuner's own pipeline at the same setting allocated for the same request."""

from __future__ import annotations

from ov_tuner.workloads.llm.answer_record import LlmAnswer
from ov_tuner.workloads.llm.folders import llm_weights_folder
from ov_tuner.workloads.llm.present.words_setting import setting_text
from ov_tuner.workloads.llm.schema import LlmSetting

# SchedulerConfig's max_num_batched_tokens for no limit (size_t's largest), as the script writes it.
_UNLIMITED = "2**64 - 1"
# What the Python forms ask when run without a request: a question with one short answer (a greeting led SmolLM2's
# greedy reply to say "Hello!" sixteen times over).
DEFAULT_PROMPT = "What is the capital of France? Answer in one sentence."

_SCRIPT = '''"""ov-tuner's LLM answer: {what}.
Serves MODEL with OpenVINO GenAI's continuous batching at the setting that ran; prints one JSON line with the
scheduler's fields as GenAI holds them, the properties given and the KV cache it allocated. A request is served as a
server serves it: through the model's chat template where it has one, ending at the end of its answer (or at
MAX_NEW_TOKENS, the longest output the load was measured with). Add requests as they come (pipe.add_request, then
pipe.step until done), or pass a batch to generate."""
import json
import sys

import openvino_genai

MODEL = {model!r}
DEVICE = {device!r}
MAX_NEW_TOKENS = {max_new_tokens}{draft_constant}

scheduler = openvino_genai.SchedulerConfig()
{scheduler_fields}
properties = {properties!r}

pipe = openvino_genai.ContinuousBatchingPipeline(MODEL, scheduler, DEVICE, {given}, {{}})
prompt = sys.argv[1] if len(sys.argv) > 1 else {default_prompt!r}
tokenizer = pipe.get_tokenizer()
if tokenizer.chat_template:
    prompt = tokenizer.apply_chat_template([{{"role": "user", "content": prompt}}], add_generation_prompt=True)
config = openvino_genai.GenerationConfig(max_new_tokens=MAX_NEW_TOKENS)
{assistant_fields}
text = pipe.generate([prompt], [config])[0].m_generation_ids[0]
held = {{name: getattr(scheduler, name) for name in ("max_num_batched_tokens", "max_num_seqs", "dynamic_split_fuse",
                                                   "enable_prefix_caching", "cache_size")}}
print(json.dumps({{"text": text, "scheduler": held, "properties": properties,
                  "kv_cache_bytes": pipe.get_metrics().kv_cache_size_in_bytes}}))
'''


_INSTANCES_SCRIPT = '''"""ov-tuner's LLM answer: {what}.
Serves MODEL as {instances} instances of OpenVINO GenAI's continuous batching at the setting that ran, each in a
process of its own pinned to a run of neighbouring cores of this process's (INFERENCE_NUM_THREADS its share), behind
a dispatcher that sends each request to the instance with the fewest in flight. Each instance takes the requests
waiting for it as one batch. A request is made a prompt by the model's chat template where it has one and ends at the
end of its answer (or at MAX_NEW_TOKENS). Prints one JSON line a request: its reply, the instance's cores, and the
scheduler's fields and properties that instance holds."""
import json
import multiprocessing
import os
import sys
from multiprocessing.connection import wait

import openvino_genai

MODEL = {model!r}
DEVICE = {device!r}
MAX_NEW_TOKENS = {max_new_tokens}
INSTANCES = {instances}
PROPERTIES = {properties!r}{draft_constant}


def scheduler():
    config = openvino_genai.SchedulerConfig()
{config_fields}
    return config


def instance(cores, link):
    os.sched_setaffinity(0, cores)  # before the pipeline loads OpenVINO's CPU plugin, which reads the cores it may use
    properties = {{**PROPERTIES, "INFERENCE_NUM_THREADS": len(cores)}}
    held = scheduler()
    pipe = openvino_genai.ContinuousBatchingPipeline(MODEL, held, DEVICE, {given}, {{}})
    tokenizer = pipe.get_tokenizer()
    config = openvino_genai.GenerationConfig(max_new_tokens=MAX_NEW_TOKENS)
{assistant_fields}
    fields = {{name: getattr(held, name) for name in ("max_num_batched_tokens", "max_num_seqs", "dynamic_split_fuse",
                                                    "enable_prefix_caching", "cache_size")}}
    while True:
        batch = [link.recv()]
        while link.poll():
            batch.append(link.recv())
        if any(number is None for number, _ in batch):
            return
        prompts = [tokenizer.apply_chat_template([{{"role": "user", "content": text}}], add_generation_prompt=True)
                   if tokenizer.chat_template else text for _, text in batch]
        for (number, _), result in zip(batch, pipe.generate(prompts, [config] * len(prompts))):
            link.send((number, {{"text": result.m_generation_ids[0], "cores": cores, "scheduler": fields,
                                "properties": properties}}))


def main(requests):
    cores = sorted(os.sched_getaffinity(0))
    count = min(INSTANCES, len(cores))
    size, extra = divmod(len(cores), count)
    starts = [i * size + min(i, extra) for i in range(count + 1)]
    links, workers = [], []
    for i in range(count):
        ours, theirs = multiprocessing.Pipe()
        worker = multiprocessing.get_context("spawn").Process(target=instance,
                                                              args=(cores[starts[i]:starts[i + 1]], theirs))
        worker.start()
        links.append(ours)
        workers.append(worker)
    in_flight = [0] * count
    for number, text in enumerate(requests):
        least = in_flight.index(min(in_flight))
        links[least].send((number, text))
        in_flight[least] += 1
    while sum(in_flight):
        for link in wait(links):
            number, said = link.recv()
            in_flight[links.index(link)] -= 1
            print(json.dumps({{"request": number, **said}}), flush=True)
    for link, worker in zip(links, workers):
        link.send((None, None))
        worker.join()


if __name__ == "__main__":
    main(sys.argv[1:] or [{default_prompt!r}])
'''


def model_path(answer: LlmAnswer) -> str:
    """The model the answer ran: the user's, or its folder with the weights ov-tuner compressed (in its cache)."""
    assert answer.answer is not None, "an LLM answer with no setting has no form"
    weights = answer.answer.setting.weights
    return answer.job.model.path if weights is None else str(llm_weights_folder(answer.job.model.sha256, weights))


def llm_python(answer: LlmAnswer) -> str:
    """The script that serves the model at the answer's setting."""
    assert answer.answer is not None, "an LLM answer with no setting has no form"
    setting, job = answer.answer.setting, answer.job
    indent = "" if setting.instances == 1 else "    "
    return (_SCRIPT if setting.instances == 1 else _INSTANCES_SCRIPT).format(
        what=setting_text(setting), model=model_path(answer), device=job.device, instances=setting.instances,
        max_new_tokens=job.load.output_tokens[1], properties=setting.pipeline_properties(),
        scheduler_fields=_scheduler_fields(setting, "scheduler", ""),
        config_fields=_scheduler_fields(setting, "config", "    "), default_prompt=DEFAULT_PROMPT,
        assistant_fields=_assistant_fields(setting, indent),
        draft_constant="" if setting.draft is None else f"\nDRAFT = {setting.draft!r}  # the model proposing tokens",
        given="properties" if setting.draft is None else
        f'\n{indent}    {{**properties, "draft_model": openvino_genai.draft_model(DRAFT, DEVICE)}}')


def _assistant_fields(setting: LlmSetting, indent: str) -> str:
    """With speculative decoding, the line every request's GenerationConfig needs (GenAI refuses a request to a
    pipeline built for it without)."""
    if setting.lookup_tokens:
        return (f"{indent}config.num_assistant_tokens, config.max_ngram_size = {setting.lookup_tokens}, "
                f"{setting.lookup_ngram}  # prompt lookup: tokens proposed a step, longest n-gram")
    if setting.draft is not None:
        return f"{indent}config.num_assistant_tokens = {setting.draft_tokens}  # tokens the draft proposes a step"
    return ""


def _scheduler_fields(setting: LlmSetting, name: str, indent: str) -> str:
    """The lines that set the SchedulerConfig `name` to the setting's fields."""
    fields = {"max_num_batched_tokens": setting.max_num_batched_tokens or _UNLIMITED,
              "max_num_seqs": setting.max_num_seqs, "dynamic_split_fuse": setting.dynamic_split_fuse,
              "enable_prefix_caching": setting.enable_prefix_caching, "cache_size": setting.cache_gb or 0}
    lines = [f"{indent}{name}.{field} = {value}" for field, value in fields.items()]
    lines[-1] += "  # GB made at once; 0 grows the KV cache as needed"
    return "\n".join(lines)
