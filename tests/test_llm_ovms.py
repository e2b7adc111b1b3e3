"""`recommend --format ovms` on an LLM's answer: OVMS's graph.pbtxt, its LLM calculator set to the answer's setting,
and the steps that lay it out beside the model and list it in a config.json. OVMS cannot run here: the calculator's
options are parsed as the LLMCalculatorOptions message OVMS's proto declares (its fields kept in
tests/data/ovms_llm_calculator_options.txt, with the commit they were read at), and the config.json the steps write
is checked against OVMS's own JSON schema (tests/data/ovms_config_schema.json)."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format
from google.protobuf.message import Message
from typer.testing import CliRunner

from ov_tuner.cli import app
from ov_tuner.workloads.llm.answer import llm_answer
from ov_tuner.workloads.llm.answer_record import LlmAnswer
from ov_tuner.workloads.llm.present.servers import llm_kubernetes, llm_ovms
from ov_tuner.workloads.llm.results_file import load_llm
from ov_tuner.workloads.llm.schema import LlmFormat, LlmSetting

DATA = Path(__file__).parent / "data"
OVMS_SCHEMA = json.loads((DATA / "ovms_config_schema.json").read_text())
# (number, label, type, name) of each LLMCalculatorOptions field, a line each under the header naming their source.
PROTO_FIELDS = [line.split() for line in (DATA / "ovms_llm_calculator_options.txt").read_text().splitlines()
                if line and not line.startswith("#")]
F = descriptor_pb2.FieldDescriptorProto
SCALARS = {"string": F.TYPE_STRING, "uint64": F.TYPE_UINT64, "uint32": F.TYPE_UINT32, "bool": F.TYPE_BOOL}
LABELS = {"optional": F.LABEL_OPTIONAL, "required": F.LABEL_REQUIRED}
NODE_OPTIONS = re.compile(r"\[type\.googleapis\.com / mediapipe\.LLMCalculatorOptions\]: \{\n(.*?)\n\s*\}", re.S)


def calculator_options() -> Message:
    """An empty LLMCalculatorOptions as OVMS's proto declares it. Its enum and message fields are left out: no form
    sets them, so one that did would fail the parse."""
    file = descriptor_pb2.FileDescriptorProto(name="llm_calculator.proto", package="mediapipe", syntax="proto2")
    message = file.message_type.add(name="LLMCalculatorOptions")
    for number, label, kind, name in PROTO_FIELDS:
        if kind in SCALARS:
            message.field.add(name=name, number=int(number), type=SCALARS[kind], label=LABELS[label])
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(file.SerializeToString())
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("mediapipe.LLMCalculatorOptions"))()


def node_options(graph: str) -> Any:
    """The graph's LLM calculator options, parsed as OVMS parses them (text format; a name or value its proto does
    not take raises ParseError)."""
    (body,) = NODE_OPTIONS.findall(graph)
    options: Any = text_format.Parse(body, calculator_options())
    assert options.IsInitialized()  # models_path, the one required field, is set
    return options


@pytest.fixture(scope="module")
def answer(llm_db: Path) -> LlmAnswer:
    stored = load_llm(llm_db)
    assert stored is not None
    found = llm_answer(stored)
    assert found.answer is not None
    return found


def test_the_graph_sets_what_ovms_declares_to_the_answers_setting_and_the_config_follows_its_schema(
        llm_db: Path, tmp_path: Path) -> None:
    shown = CliRunner().invoke(app, ["recommend", str(llm_db), "--format", "json"])
    assert shown.exit_code == 0, shown.output
    said = json.loads(shown.stdout)
    graph_file = tmp_path / "graph.pbtxt"
    shown = CliRunner().invoke(app, ["recommend", str(llm_db), "--format", "ovms", "-o", str(graph_file)])
    assert shown.exit_code == 0, shown.output
    options = node_options(graph_file.read_text())
    setting = said["answer"]["setting"]
    assert options.max_num_batched_tokens == (setting["max_num_batched_tokens"] or 2**64 - 1)
    assert (options.max_num_seqs, options.dynamic_split_fuse, options.enable_prefix_caching) == (
        setting["max_num_seqs"], setting["dynamic_split_fuse"], setting["enable_prefix_caching"])
    assert json.loads(options.plugin_config) == {k: str(v) for k, v in setting["properties"].items()}
    # the KV cache grown as requests need it, as the trials ran it and as the Python form sets it
    assert options.device == said["device"] and options.cache_size == (setting["cache_gb"] or 0)
    assert options.models_path == "/models/tiny/tiny.gguf"  # OVMS takes a GGUF as models_path

    lay_out, write_config, serve = shown.stdout.splitlines()[-3:]
    assert lay_out == (f"mkdir -p /models/tiny && cp {said['model']['path']} /models/tiny/tiny.gguf && "
                       f"cp {graph_file} /models/tiny/graph.pbtxt")
    subprocess.run(["sh", "-ec", write_config], cwd=tmp_path, check=True)
    config = json.loads((tmp_path / "config.json").read_text())
    jsonschema.validate(config, OVMS_SCHEMA)
    assert config["model_config_list"] == [{"config": {"name": "tiny", "base_path": "/models/tiny"}}]
    assert serve == "ovms --config_path config.json --port 9000 --rest_port 8000"


@pytest.mark.parametrize("setting", [
    LlmSetting(max_num_batched_tokens=4096, kv_cache_precision="u8"),
    LlmSetting(max_num_batched_tokens=None, enable_prefix_caching=True, dynamic_split_fuse=False, max_num_seqs=8,
               kv_cache_precision="u4", inference_precision="bf16", threads=2),
])
def test_every_setting_parses_as_ovms_reads_it_and_carries_the_setting(answer: LlmAnswer,
                                                                      setting: LlmSetting) -> None:
    """Unlimited batched tokens (size_t's largest, a uint64 OVMS takes), every plugin property as the JSON its
    plugin_config parser reads, and the KV cache as the trials ran it: grown as needed, or the size searched."""
    assert answer.answer is not None
    figures = dataclasses.replace(answer.answer, setting=setting, kv_cache_bytes=2**30 + 1)
    graph, _ = llm_ovms(dataclasses.replace(answer, answer=figures), "graph.pbtxt")
    options = node_options(graph)
    assert options.max_num_batched_tokens == (setting.max_num_batched_tokens or 2**64 - 1)
    assert (options.max_num_seqs, options.dynamic_split_fuse, options.enable_prefix_caching) == (
        setting.max_num_seqs, setting.dynamic_split_fuse, setting.enable_prefix_caching)
    assert json.loads(options.plugin_config) == {k: str(v) for k, v in setting.properties().items()}
    assert json.loads(options.plugin_config)["KV_CACHE_PRECISION"] == setting.kv_cache_precision
    assert options.cache_size == (setting.cache_gb or 0)
    assert f"to {figures.kv_cache_bytes / 2**20:.1f} MiB at the load measured" in graph or setting.cache_gb


def test_a_draft_model_is_copied_beside_the_model_and_named_as_ovms_declares_it(answer: LlmAnswer) -> None:
    """Speculative decoding as OVMS reads it: draft_models_path, a field of its proto, naming the folder the steps
    copy the draft into (a request's num_assistant_tokens defaults to 5 there, the tokens the trials proposed)."""
    assert answer.answer is not None
    drafted = LlmSetting(enable_prefix_caching=True, draft="/cache/draft-ir", draft_tokens=5)
    graph, steps = llm_ovms(dataclasses.replace(answer, answer=dataclasses.replace(answer.answer, setting=drafted)),
                            "graph.pbtxt")
    options = node_options(graph)
    assert options.draft_models_path.endswith("/draft") and options.enable_prefix_caching
    assert f"cp -r /cache/draft-ir/. {options.draft_models_path}/" in steps[0]


def test_a_genai_folder_is_served_from_the_graphs_folder(answer: LlmAnswer) -> None:
    model = dataclasses.replace(answer.job.model, path="/m/qwen2.5-ov/", format=LlmFormat.FOLDER)
    graph, steps = llm_ovms(dataclasses.replace(answer, job=dataclasses.replace(answer.job, model=model)), "g.pbtxt")
    assert node_options(graph).models_path == "/models/qwen2.5-ov"
    assert steps[0] == "mkdir -p /models/qwen2.5-ov && cp -r /m/qwen2.5-ov/. /models/qwen2.5-ov/ && " \
                       "cp g.pbtxt /models/qwen2.5-ov/graph.pbtxt"


def test_the_parse_catches_an_option_ovms_does_not_declare(answer: LlmAnswer) -> None:
    """The check is strict enough to fail: a misspelt option, or one OVMS has as a message, is refused."""
    graph, _ = llm_ovms(answer, "graph.pbtxt")
    for wrong in (graph.replace("max_num_seqs:", "max_num_sequences:"),
                  graph.replace("cache_size: ", "cache_eviction_config: ")):
        with pytest.raises(text_format.ParseError):
            node_options(wrong)


def test_instances_are_servers_pinned_to_their_own_cores_behind_a_least_connections_balancer(
        answer: LlmAnswer, tmp_path: Path) -> None:
    assert answer.answer is not None
    two = dataclasses.replace(answer.answer, setting=LlmSetting(instances=2))
    # measured in a cpuset of 4 cores: the answer's instances ran on 0-1 and 2-3
    graph, steps = llm_ovms(dataclasses.replace(answer, answer=two, instance_cores=((0, 1), (2, 3))), "graph.pbtxt")
    # each server told its share of the threads and pinned (OVMS sets neither outside a container)
    assert json.loads(node_options(graph).plugin_config) == {"INFERENCE_NUM_THREADS": "2",
                                                              "ENABLE_CPU_PINNING": "true"}
    assert steps[2:4] == ("taskset -c 0-1 ovms --config_path config.json --port 9000 --rest_port 8000 &",
                          "taskset -c 2-3 ovms --config_path config.json --port 9001 --rest_port 8001 &")
    subprocess.run(["sh", "-ec", steps[4].split(" && nginx")[0]], cwd=tmp_path, check=True)
    assert "least_conn; server 127.0.0.1:8000; server 127.0.0.1:8001;" in (tmp_path / "nginx.conf").read_text()


def test_a_ggufs_compressed_weights_are_served_as_their_folder(answer: LlmAnswer) -> None:
    assert answer.answer is not None
    int4 = dataclasses.replace(answer.answer, setting=LlmSetting(weights="int4"))
    graph, steps = llm_ovms(dataclasses.replace(answer, answer=int4), "graph.pbtxt")
    assert node_options(graph).models_path == "/models/tiny" and steps[0].startswith("mkdir -p /models/tiny && cp -r ")


def test_the_kubernetes_form_of_instances_is_replicas_each_with_its_share(answer: LlmAnswer) -> None:
    """Two instances of a core each: two replicas, each requesting and limited to one whole CPU; one instance: the
    box's resources, with the way to measure under another limit that `llm` has (no --cpus)."""
    import yaml

    assert answer.answer is not None
    two = dataclasses.replace(answer, answer=dataclasses.replace(answer.answer, setting=LlmSetting(instances=2)),
                              instance_cores=((0,), (1,)))
    form = llm_kubernetes(two)
    assert yaml.safe_load(form) == {"replicas": 2, "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}}}
    assert "the Deployment's spec" in form
    assert "--cpus" not in llm_kubernetes(answer) and "ov-tuner llm" in llm_kubernetes(answer)
