"""The LLM answer in the forms people run: a Python script serving the model with `openvino_genai` at the setting
that ran (its SchedulerConfig fields and plugin properties), an OpenVINO Model Server graph whose LLM calculator sets
the same, and the record as JSON in the shared envelope.

The tests run the script on the tiny model and compare the KV cache it allocated (the one figure GenAI reads back
that a property changes) with what ov-tuner's own pipeline at the same setting allocated for the same request. OVMS
cannot run there: the graph's options are parsed against LLMCalculatorOptions as OVMS's proto declares it."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ov_tuner.engine.boundary import CONFIDENCE
from ov_tuner.present.box_forms import LLM_UNDER_LIMIT, kubernetes_resources
from ov_tuner.present.envelope import AnswerKind, envelope
from ov_tuner.present.servers import OVMS_CONFIG, OVMS_MODELS
from ov_tuner.present.words.llm import answer_lines, setting_text
from ov_tuner.quantize.paths import llm_weights_folder
from ov_tuner.workloads.llm.answer import PERCENTILES, LlmAnswer, LlmGain, SettingFigures
from ov_tuner.workloads.llm.schema import LlmFormat, LlmModel, LlmSetting

# SchedulerConfig's max_num_batched_tokens for no limit (size_t's largest): as the script writes it, and its value (a
# uint64 in OVMS's proto) as the graph does.
_UNLIMITED = "2**64 - 1"
_UNLIMITED_VALUE = 2**64 - 1
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


# The file OVMS reads an LLM's graph from, in the folder config.json's base_path names (DEFAULT_GRAPH_FILENAME in its
# src/mediapipe_internal/mediapipegraphconfig.cpp).
OVMS_GRAPH = "graph.pbtxt"
# The text-generation graph OVMS's export script writes (demos/common/export_models/export_model.py of
# openvinotoolkit/model_server at 7e4df0c), its node_options the answer's.
_GRAPH = '''# ov-tuner's LLM answer for OpenVINO Model Server: {what}.
# cache_size {cache_size} (GB): {cache_why}.
# On CPU in a container, OVMS sets ENABLE_CPU_PINNING and INFERENCE_NUM_THREADS where plugin_config does not.
# Requests: POST http://HOST:8000/v3/chat/completions with "model": "{name}".
# OVMS_GRAPH_QUEUE_MAX_SIZE: AUTO
input_stream: "HTTP_REQUEST_PAYLOAD:input"
output_stream: "HTTP_RESPONSE_PAYLOAD:output"

node: {{
  name: "LLMExecutor"
  calculator: "HttpLLMCalculator"
  input_stream: "LOOPBACK:loopback"
  input_stream: "HTTP_REQUEST_PAYLOAD:input"
  input_side_packet: "LLM_NODE_RESOURCES:llm"
  input_side_packet: "LLM_NODE_EXECUTION_CONTEXTS:llm_ctx"
  output_stream: "LOOPBACK:loopback"
  output_stream: "HTTP_RESPONSE_PAYLOAD:output"
  input_stream_info: {{
    tag_index: 'LOOPBACK:0',
    back_edge: true
  }}
  node_options: {{
    [type.googleapis.com / mediapipe.LLMCalculatorOptions]: {{
      {options}
    }}
  }}
  input_stream_handler {{
    input_stream_handler: "SyncSetInputStreamHandler",
    options {{
      [mediapipe.SyncSetInputStreamHandlerOptions.ext] {{
        sync_set {{
          tag_index: "LOOPBACK:0"
        }}
      }}
    }}
  }}
}}'''


def llm_ovms(answer: LlmAnswer, graph_file: str) -> tuple[str, tuple[str, ...]]:
    """OVMS's graph.pbtxt serving the model at the answer's setting, and the steps that lay it out beside the model
    (read from `graph_file`), list it in a config.json and start the server. The options are LLMCalculatorOptions'
    (OVMS's src/llm/llm_calculator.proto), plugin_config the JSON its servable parses into the plugin's properties."""
    assert answer.answer is not None, "an LLM answer with no setting has no form"
    figures, job = answer.answer, answer.job
    setting, name = figures.setting, _served_name(job.model)
    folder = f"{OVMS_MODELS}/{name}"
    # OVMS takes a GGUF file as models_path (parseModelsPath in its src/llm/servable_initializer.cpp) and GenAI reads
    # it as the trials did, so no export; a GenAI folder's files go beside the graph, as OVMS's export script lays it,
    # as do those of a GGUF's folder with its weights compressed by ov-tuner.
    if job.model.format is LlmFormat.GGUF and setting.weights is None:
        models_path = f"{folder}/{name}.gguf"
        copy = f"cp {shlex.quote(model_path(answer))} {models_path}"
    else:
        models_path = folder
        copy = f"cp -r {shlex.quote(model_path(answer).rstrip('/') + '/.')} {folder}/"
    cache_size = setting.cache_gb or 0  # what the trials ran, as the Python form sets it
    shares = answer.instance_cores
    properties: dict[str, Any] = setting.properties()
    if setting.instances > 1:
        # Outside a container OVMS sets no CPU property of its own (applyDefaultCpuProperties in its src/ov_utils.cpp
        # acts only in one): each server is told its share and pinned to it.
        properties.update({"INFERENCE_NUM_THREADS": min(len(share) for share in shares), "ENABLE_CPU_PINNING": "true"})
    options = {"models_path": f'"{models_path}"', "device": f'"{job.device}"',
               "max_num_batched_tokens": setting.max_num_batched_tokens or _UNLIMITED_VALUE,
               "max_num_seqs": setting.max_num_seqs, "dynamic_split_fuse": _bool(setting.dynamic_split_fuse),
               "enable_prefix_caching": _bool(setting.enable_prefix_caching), "cache_size": cache_size,
               "plugin_config": f"'{json.dumps(_plugin_config(properties, setting))}'"}
    if setting.draft is not None:  # a request's num_assistant_tokens defaults to 5 (base_generation_config_builder.cpp)
        options["draft_models_path"] = f'"{folder}/draft"'
        copy += f" && mkdir -p {folder}/draft && cp -r {shlex.quote(setting.draft.rstrip('/') + '/.')} {folder}/draft/"
    cache_why = ("the KV cache the answer ran with, made at once" if setting.cache_gb else
                 f"grown as requests need it, as the trials ran (to {figures.kv_cache_bytes / 2**20:.1f} MiB at the "
                 "load measured); a size in GB makes it at once and bounds it")
    graph = _GRAPH.format(what=setting_text(setting), cache_size=cache_size, cache_why=cache_why,
                          name=name, options=",\n      ".join(f"{k}: {v}" for k, v in options.items()))
    # A graph is listed as a model whose base_path holds graph.pbtxt, as OVMS's export script now lists it.
    config = json.dumps({"model_config_list": [{"config": {"name": name, "base_path": folder}}]})
    steps = (f"mkdir -p {folder} && {copy} && cp {shlex.quote(graph_file)} {folder}/{OVMS_GRAPH}",
             f"printf '%s\\n' {shlex.quote(config)} > {OVMS_CONFIG}")
    if setting.instances == 1:
        return graph, (*steps, f"ovms --config_path {OVMS_CONFIG} --port 9000 --rest_port 8000")
    # One server a share of the cores, as OVMS's own scaling demo runs one a NUMA node (its
    # demos/continuous_batching/scaling/README.md), behind a balancer sending each request to the least busy.
    servers = [f"taskset -c {_cpu_list(share)} ovms --config_path {OVMS_CONFIG} --port {9000 + i} "
               f"--rest_port {8000 + i} &" for i, share in enumerate(shares)]
    upstream = " ".join(f"server 127.0.0.1:{8000 + i};" for i in range(len(shares)))
    nginx = (f"events {{}} http {{ upstream llm {{ least_conn; {upstream} }} "
             "server { listen 8080; location / { proxy_pass http://llm; } } }")
    balancer = f"printf '%s\\n' {shlex.quote(nginx)} > nginx.conf && nginx -c \"$PWD/nginx.conf\""
    return graph, (*steps, *servers, balancer)


def _plugin_config(properties: dict[str, Any], setting: LlmSetting) -> dict[str, Any]:
    """plugin_config's JSON: the plugin's properties as strings, which every plugin property parses (a JSON integer
    reaches it as an int64); with prompt lookup, OVMS's switch for it, a JSON true (src/llm/servable.cpp reads it
    there; a request's num_assistant_tokens and max_ngram_size default to 5 and 3)."""
    config: dict[str, Any] = {k: str(v) for k, v in properties.items()}
    if setting.lookup_tokens:
        config["prompt_lookup"] = True
    return config


def _cpu_list(cpus: Sequence[int]) -> str:
    """taskset's list: '0-3', or '5'."""
    return str(cpus[0]) if len(cpus) == 1 else f"{cpus[0]}-{cpus[-1]}"


def llm_kubernetes(answer: LlmAnswer) -> str:
    """The container resources the answer was measured in; for several instances, that many replicas each with its
    share, whole CPUs request and limit alike (the Guaranteed class: the static CPU manager pins them)."""
    assert answer.answer is not None, "an LLM answer with no setting has no form"
    count = answer.answer.setting.instances
    if count == 1:
        return kubernetes_resources(answer.box, LLM_UNDER_LIMIT)
    share = min(len(s) for s in answer.instance_cores)
    return (f"# {count} replicas of one server (OVMS or the Python form), each with {share} CPUs of its own, behind a "
            "Service that spreads requests over them;\n# whole CPUs, request equal to limit, so the kubelet's static "
            "CPU manager pins each to its own cores as ov-tuner did.\n# replicas: goes in the Deployment's spec, "
            f"resources: in its server container's\nreplicas: {count}\nresources:\n  requests:\n"
            f"    cpu: \"{share}\"\n  limits:\n    cpu: \"{share}\"")


def _served_name(model: LlmModel) -> str:
    """The name OVMS serves the model under (its folder, a request's "model"): the GGUF file's stem or the folder's
    name, in the characters OVMS allows in a path."""
    path = Path(model.path)
    return re.sub(r"[^A-Za-z0-9_.-]", "_", path.stem if model.format is LlmFormat.GGUF else path.name) or "model"


def _bool(value: bool) -> str:
    return "true" if value else "false"


def llm_answer_json(answer: LlmAnswer) -> dict[str, Any]:
    """The answer record as plain JSON values, in the envelope every answer comes in."""
    job = answer.job
    load, budget = job.load, job.budget
    body = {
        "model": {"path": job.model.path, "format": job.model.format.value, "sha256": job.model.sha256,
                  "architecture": job.model.architecture, "layers": job.model.layers, "width": job.model.width},
        "device": job.device, "genai_version": job.genai_version,
        "load": {"users": load.users, "rate": load.rate, "arrival": load.arrival.value, "think_ms": load.think_ms,
                 "prompt_tokens": list(load.prompt_tokens), "output_tokens": list(load.output_tokens),
                 "prompts_file": load.prompts_file, "conversations_file": load.conversations_file,
                 "shared_prefix": load.shared_prefix, "seconds": load.seconds},
        "budget": {"ttft_ms": budget.ttft_ms, "tpot_ms": budget.tpot_ms, "percentile": budget.percentile},
        "answer": None if answer.answer is None else _figures(answer.answer),
        "fastest": None if answer.fastest is None else _figures(answer.fastest),
        "gains": [_gain(g) for g in answer.gains],
        "passes": answer.passes,
        "searched": [_figures(f) for f in answer.searched],
        "failed": [{"setting": _setting(s), "error": e} for s, e in answer.failed],
        "pareto": [_setting(f.setting) for f in answer.pareto],
        "agreements": [{"setting": _setting(s), "agreement": share, "next_tokens": answer.next_tokens.get(s),
                        "first_step_cosine": answer.cosines.get(s), "judged": answer.judged.get(s),
                        "reply": answer.replies.get(s, ("", ""))[1] or None}
                       for s, share in answer.agreements.items()],
        "walks": [{"setting": _setting(w.setting), "unit": "users" if job.load.closed else "requests/s",
                   "served": w.served, "low": w.found.low, "high": w.found.high, "confidence": CONFIDENCE,
                   "at_ceiling": w.at_ceiling, "windows": [{"load": n, "met": ok} for n, ok in w.windows]}
                  for w in answer.walks],
        "walk_gains": [{"baseline": _setting(g.baseline), "difference": g.difference.value, "low": g.difference.low,
                        "high": g.difference.high, "confidence": CONFIDENCE, "differs": g.difference.differs}
                       for g in answer.walk_gains],
        "by_load": [{"setting": _setting(k.setting), "twin": _setting(k.twin),
                     "unit": "users" if job.load.closed else "requests/s",
                     "pays_up_to": k.verdict.pays_up_to, "slower_from": k.verdict.slower_from,
                     "at": [{"load": p.load, "ratio": p.ratio.value, "low": p.ratio.low, "high": p.ratio.high,
                             "passes": p.ratio.passes, "faster": p.faster, "slower": p.slower}
                            for p in k.verdict.at]}
                    for k in answer.by_load],
        "harness": None if (h := answer.harness) is None else {
            "load": h.trial.walked_at, "ok": h.trial.ok, "ttft_ms": h.ttft_ms, "tpot_ms": h.tpot_ms,
            "ttft_share": h.ttft_share, "tpot_share": h.tpot_share, "limited": h.limited},
        "hardware": None if (b := answer.bound) is None else {
            "steps_per_s": b.steps_per_s, "weight_bytes": b.weight_bytes, "kv_bytes_per_step": b.kv_bytes_per_step,
            "kv_precision": b.kv_precision, "memory_gbs": b.memory_gbs, "host_memory_gbs": b.host_memory_gbs,
            "memory_share": b.memory_share, "tokens_per_s": b.tokens_per_s, "gflops": b.gflops,
            "host_gflops": b.host_gflops, "matmul_precision": b.matmul_precision, "compute_share": b.compute_share,
            "bound": b.bound.value, "ceiling_output_tokens_per_s": b.ceiling_tokens_per_s},
    }
    held = None if not answer.held_back else {
        "min_agreement": answer.min_agreement,
        "settings": [{**_figures(f), "agreement": answer.judged[f.setting]} for f in answer.held_back]}
    return envelope(AnswerKind.LLM, body, answer.box, None, held, dict(answer_lines(answer)))


def _setting(setting: LlmSetting) -> dict[str, Any]:
    return {"max_num_batched_tokens": setting.max_num_batched_tokens, "max_num_seqs": setting.max_num_seqs,
            "dynamic_split_fuse": setting.dynamic_split_fuse, "enable_prefix_caching": setting.enable_prefix_caching,
            "properties": setting.properties(), "weights": setting.weights, "cache_gb": setting.cache_gb,
            "prompt_lookup": {"num_assistant_tokens": setting.lookup_tokens, "max_ngram_size": setting.lookup_ngram}
            if setting.lookup_tokens else None,
            "draft": {"model": setting.draft, "num_assistant_tokens": setting.draft_tokens} if setting.draft else None}


def _figures(f: SettingFigures) -> dict[str, Any]:
    return {"setting": _setting(f.setting), "trials": f.trials, "output_tokens_per_s": f.tokens_per_s,
            "requests_per_s": f.requests_per_s,
            "ttft_ms": {f"p{p:g}": v for p, v in zip(PERCENTILES, f.latencies.ttft_ms, strict=True)},
            "tpot_ms": {f"p{p:g}": v for p, v in zip(PERCENTILES, f.latencies.tpot_ms, strict=True)},
            "meets_budget": f.meets, "kv_cache_bytes": f.kv_cache_bytes, "max_cache_usage": f.max_cache_usage,
            "peak_rss_bytes": f.peak_rss_bytes, "first_request_ms": f.first_request_ms,
            "prefix_hit_rate": f.hit_rate if f.setting.enable_prefix_caching else None}


def _gain(g: LlmGain) -> dict[str, Any]:
    return {"baseline": _setting(g.baseline), "ratio": g.ratio.value, "low": g.ratio.low, "high": g.ratio.high,
            "passes": g.ratio.passes, "confidence": g.ratio.confidence}
