"""The LLM answer for servers: an OpenVINO Model Server graph whose LLM calculator sets what the trials ran, the
steps that lay it out and start OVMS (one server a share of the cores, behind a balancer, for several instances),
and a Kubernetes container's resources. OVMS cannot run in the tests: the graph's options are parsed against
LLMCalculatorOptions as OVMS's proto declares it."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ov_tuner.present.box_forms import Remeasure, kubernetes_resources
from ov_tuner.present.servers import OVMS_CONFIG, OVMS_MODELS
from ov_tuner.workloads.llm.answer_record import LlmAnswer
from ov_tuner.workloads.llm.present.forms import model_path
from ov_tuner.workloads.llm.present.words_setting import setting_text
from ov_tuner.workloads.llm.schema import LlmFormat, LlmModel, LlmSetting

# max_num_batched_tokens for no limit (size_t's largest), as a uint64 in OVMS's proto.
_UNLIMITED_VALUE = 2**64 - 1

# The file OVMS reads an LLM's graph from, in the folder config.json's base_path names (DEFAULT_GRAPH_FILENAME in its
# src/mediapipe_internal/mediapipegraphconfig.cpp).
OVMS_GRAPH = "graph.pbtxt"

# How an LLM's user measures again: its command has no --cpus, so in a container with the limit they will set.
LLM_REMEASURE = Remeasure("run `ov-tuner llm` in a container with the limit you will set",
                          "(measured before ov-tuner read them):\n# run `ov-tuner llm` again to get the limit it holds "
                          "under")
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
        return kubernetes_resources(answer.box, LLM_REMEASURE)
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
