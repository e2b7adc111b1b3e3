"""The options of `ov-tuner llm`, one type each (Typer reads a parameter's option from its annotation), so that the
command reads as what it does."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ov_tuner.schema import Arrival

# The values the CPU plugin names (the device judges each before anything runs).
KV_PRECISIONS = ("u8", "u4", "u3", "f16", "bf16", "f32")
INFERENCE_PRECISIONS = ("f32", "f16", "bf16")

LlmModelArgument = Annotated[Path, typer.Argument(help="A GGUF file (llama, qwen2, qwen3; F16 or "
                                                  "Q8_0/Q4_0/Q4_1/Q4_K/Q6_K weights) or a GenAI model folder, as "
                                                  "`optimum-cli export openvino` writes it.")]
OutPathOption = Annotated[Path, typer.Option("--out", help="SQLite results file to store every trial in (rerun the "
                                             "same command to resume).")]
DeviceOption = Annotated[str, typer.Option(help="The device as OpenVINO names it: CPU, GPU, NPU.")]
UsersOption = Annotated[int | None, typer.Option(min=1, help="Concurrent users (closed loop), each sending its next "
                                                 "request --think-ms after its answer. \\[default: 8, without --rate]")]
RateOption = Annotated[float, typer.Option(min=0.0, help="Requests a second arriving open loop, instead of "
                                           "--users.")]
ArrivalOption = Annotated[Arrival, typer.Option(help="How --rate's requests arrive.")]
ThinkMsOption = Annotated[float, typer.Option(min=0.0, help="A user's pause between an answer and its next "
                                              "request (in a conversation, its reading time).")]
PromptTokensOption = Annotated[str, typer.Option(help="Prompt length in tokens, or a range drawn uniformly: "
                                                 "64-128.")]
OutputTokensOption = Annotated[str, typer.Option(help="Output length in tokens (held with min_new_tokens and "
                                                 "ignore_eos), or a range: 32-64.")]
PromptsOption = Annotated[Path | None, typer.Option(help="JSONL prompts file, one {\"prompt\": ..., \"output_tokens\": "
                                                    "N} a line, instead of generated prompts.")]
ConversationsOption = Annotated[Path | None, typer.Option(help="JSONL conversations file: a {\"system\": ...} line, "
                                                          "then one {\"turns\": [...], \"output_tokens\": N} a "
                                                          "line; each user sends a conversation's turns in order, each "
                                                          "with its history and the model's replies (with --users).")]
SharedPrefixOption = Annotated[int, typer.Option(min=0, help="Tokens every generated prompt begins with alike, to "
                                                 "measure what prefix caching gives.")]
SecondsOption = Annotated[float, typer.Option(min=0.2, help="Seconds of each trial's counted window: the requests "
                                              "arriving in it are timed, and what is served from its opening until "
                                              "they end is the throughput.")]
LeadInOption = Annotated[float, typer.Option(min=0.0, help="Seconds of the same load before the window, not counted "
                                             "(with --users, at least until the first request of every user without "
                                             "one in flight ended).")]
TtftMsOption = Annotated[float | None, typer.Option(min=0.0, help="Time to first token budget, ms.")]
TpotMsOption = Annotated[float | None, typer.Option(min=0.0, help="Time per output token budget, ms.")]
PercentileOption = Annotated[float, typer.Option(min=50.0, max=99.9, help="The latency percentile the budget holds "
                                                 "at, 50 to 99.9.")]
BatchedTokensOption = Annotated[str, typer.Option(help="max_num_batched_tokens values searched (unlimited for none): "
                                                  "the prompt tokens one step takes.")]
KvPrecisionOption = Annotated[str, typer.Option(help="KV_CACHE_PRECISION values searched (default: the plugin's): "
                                                f"{', '.join(KV_PRECISIONS)}.")]
ThreadsOption = Annotated[str, typer.Option(help="INFERENCE_NUM_THREADS values searched.")]
PrecisionOption = Annotated[str, typer.Option(help="INFERENCE_PRECISION_HINT values searched: default, "
                                              f"{', '.join(INFERENCE_PRECISIONS)} (fp32 and fp16, as a sweep spells "
                                              "them, too).")]
MaxSeqsOption = Annotated[str, typer.Option(help="max_num_seqs values searched.")]
WeightsOption = Annotated[str, typer.Option(help="A GenAI folder's weights searched: default (as given), int8, int4 "
                                            "(compressed with NNCF once, kept in ov-tuner's cache).")]
SplitFuseOption = Annotated[str, typer.Option(help="dynamic_split_fuse values searched: on, off.")]
PrefixCachingOption = Annotated[str, typer.Option(help="enable_prefix_caching values searched: off, on, or auto (off "
                                                  "and on where requests can begin alike: conversations, a prompts "
                                                  "file, --shared-prefix; else off).")]
PromptLookupOption = Annotated[str, typer.Option(help="Prompt lookup decoding searched: off, TOKENS:NGRAM (the tokens "
                                                 "a step proposes from the prompt's n-grams of up to NGRAM), or auto "
                                                 "(off and 5:3 where the requests are a file's text, else off).")]
DraftOption = Annotated[Path | None, typer.Option(help="A draft model (GGUF or GenAI folder, the model's tokenizer) "
                                                  "for speculative decoding, searched off and on: it proposes 5 "
                                                  "tokens a step, which the model verifies at once.")]
DqGroupSizeOption = Annotated[str, typer.Option(help="DYNAMIC_QUANTIZATION_GROUP_SIZE values searched (0: off).")]
CacheGbOption = Annotated[str, typer.Option(help="SchedulerConfig.cache_size values searched: a KV cache of N GB made "
                                            "at once (default: grown as needed).")]
InstancesOption = Annotated[str, typer.Option(help="Instances of the model searched: N pipelines, each in a process of "
                                              "its own pinned to its share of the cores, the users spread over them "
                                              "(with --users).")]
SearchOption = Annotated[str, typer.Option(help="axes: GenAI left alone, then each axis's values on the best setting "
                                           "so far; grid: every combination of the values searched.")]
PassesOption = Annotated[int, typer.Option(min=0, help="Passes side by side of the best settings and GenAI's defaults, "
                                           "at most (0: none; an interval needs 2 or more).")]
MostUsersOption = Annotated[int, typer.Option(min=1, help="With --users and a budget: the most users the walk to what "
                                              "the answer and the baselines serve tries.")]
MostRateOption = Annotated[float | None, typer.Option(min=0.0, help="With --rate and a budget: the most requests a "
                                                      "second the walk tries. \\[default: 64 times --rate]")]
WalkOption = Annotated[bool, typer.Option(help="With a budget: walk to the most users (or requests a second) the "
                                          "answer and the baselines serve within it.")]
MinAgreementOption = Annotated[float, typer.Option(min=0.0, max=1.0, help="Hold back a setting that computes in "
                                                   "another precision (KV cache, weights) where its next tokens along "
                                                   "f32 inference's own continuation of 16 prompts agree with f32's "
                                                   "less than this (0 keeps all).")]
