"""`ov-tuner llm`: tune an LLM served by OpenVINO GenAI for the users it serves within a latency budget."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ov_tuner.commandline.app import EXIT_INTERRUPTED, app, one_line_errors, out, stop_on_ctrl_c
from ov_tuner.commandline.clock import ConsoleWatch, TimeBudgetOption
from ov_tuner.commandline.clock import time_budget as timed
from ov_tuner.commandline.flags import count_above_zero, parse_span, parse_switches, parse_values, whole_number
from ov_tuner.commandline.inputs import own_flags
from ov_tuner.commandline.renamed import ROUNDS, Renamed, renamed_flags
from ov_tuner.errors import BadInputError
from ov_tuner.schema import Arrival
from ov_tuner.workloads.llm.schema import (
    DQ_GROUP_SIZE_INPUT,
    DRAFT_INPUT,
    INSTANCES_INPUT,
    KV_PRECISION_INPUT,
    SHARED_PREFIX_INPUT,
    WEIGHTS_INPUT,
)

if TYPE_CHECKING:
    from ov_tuner.workloads.llm.schema import LlmSpace
    from ov_tuner.workloads.llm.search import LlmSearch

renamed_flags("llm", {**ROUNDS, "--precision-hint": Renamed("--precision")})
own_flags({KV_PRECISION_INPUT: "--kv-precision", WEIGHTS_INPUT: "--weights", DQ_GROUP_SIZE_INPUT: "--dq-group-size",
           SHARED_PREFIX_INPUT: "--shared-prefix", INSTANCES_INPUT: "--instances", DRAFT_INPUT: "--draft"})

# The users of a closed loop where neither --users nor --rate is given.
DEFAULT_USERS = 8
# The values the CPU plugin names (the device judges each before anything runs).
KV_PRECISIONS = ("u8", "u4", "u3", "f16", "bf16", "f32")
INFERENCE_PRECISIONS = ("f32", "f16", "bf16")


@app.command(epilog="What each setting does and how a trial measures: docs/llm.md.")
@one_line_errors
def llm(
    model: Annotated[Path, typer.Argument(help="A GGUF file (llama, qwen2, qwen3; F16 or Q8_0/Q4_0/Q4_1/Q4_K/Q6_K "
                                          "weights) or a GenAI model folder, as `optimum-cli export openvino` writes "
                                          "it.")],
    out_path: Annotated[Path, typer.Option("--out", help="SQLite results file to store every trial in (rerun the "
                                           "same command to resume).")] = Path("llm.db"),
    device: Annotated[str, typer.Option(help="The device as OpenVINO names it: CPU, GPU, NPU.")] = "CPU",
    users: Annotated[int | None, typer.Option(min=1, help="Concurrent users (closed loop), each sending its next "
                                              "request --think-ms after its answer. \\[default: 8, without --rate]")]
    = None,
    rate: Annotated[float, typer.Option(min=0.0, help="Requests a second arriving open loop, instead of "
                                        "--users.")] = 0.0,
    arrival: Annotated[Arrival, typer.Option(help="How --rate's requests arrive.")] = Arrival.POISSON,
    think_ms: Annotated[float, typer.Option(min=0.0, help="A user's pause between an answer and its next "
                                            "request (in a conversation, its reading time).")] = 0.0,
    prompt_tokens: Annotated[str, typer.Option(help="Prompt length in tokens, or a range drawn uniformly: "
                                               "64-128.")] = "64-128",
    output_tokens: Annotated[str, typer.Option(help="Output length in tokens (held with min_new_tokens and "
                                               "ignore_eos), or a range: 32-64.")] = "32-64",
    prompts: Annotated[Path | None, typer.Option(help="JSONL prompts file, one {\"prompt\": ..., \"output_tokens\": "
                                                 "N} a line, instead of generated prompts.")] = None,
    conversations: Annotated[Path | None, typer.Option(help="JSONL conversations file: a {\"system\": ...} line, then "
                                                       "one {\"turns\": [...], \"output_tokens\": N} a line; each "
                                                       "user sends a conversation's turns in order, each with its "
                                                       "history and the model's replies (with --users).")] = None,
    shared_prefix: Annotated[int, typer.Option(min=0, help="Tokens every generated prompt begins with alike, to "
                                               "measure what prefix caching gives.")] = 0,
    seconds: Annotated[float, typer.Option(min=0.2, help="Seconds of each trial's counted window: the requests "
                                           "arriving in it are timed, and what is served from its opening until "
                                           "they end is the throughput.")] = 4.0,
    lead_in: Annotated[float, typer.Option(min=0.0, help="Seconds of the same load before the window, not counted "
                                           "(with --users, at least until the first request of every user without "
                                           "one in flight ended).")] = 1.0,
    ttft_ms: Annotated[float | None, typer.Option(min=0.0, help="Time to first token budget, ms.")] = None,
    tpot_ms: Annotated[float | None, typer.Option(min=0.0, help="Time per output token budget, ms.")] = None,
    percentile: Annotated[float, typer.Option(min=50.0, max=99.9, help="The latency percentile the budget holds "
                                              "at, 50 to 99.9.")] = 90.0,
    batched_tokens: Annotated[str, typer.Option(help="max_num_batched_tokens values searched (unlimited for none): "
                                                "the prompt tokens one step takes.")] = "256,1024,4096",
    kv_precision: Annotated[str, typer.Option(help="KV_CACHE_PRECISION values searched (default: the plugin's): "
                                              f"{', '.join(KV_PRECISIONS)}.")] = "default,u8,u4",
    threads: Annotated[str, typer.Option(help="INFERENCE_NUM_THREADS values searched.")] = "default",
    precision: Annotated[str, typer.Option(help="INFERENCE_PRECISION_HINT values searched: default, "
                                           f"{', '.join(INFERENCE_PRECISIONS)} (fp32 and fp16, as a sweep spells "
                                           "them, too).")] = "default",
    max_seqs: Annotated[str, typer.Option(help="max_num_seqs values searched.")] = "256",
    weights: Annotated[str, typer.Option(help="A GenAI folder's weights searched: default (as given), int8, int4 "
                                         "(compressed with NNCF once, kept in ov-tuner's cache).")] = "default",
    split_fuse: Annotated[str, typer.Option(help="dynamic_split_fuse values searched: on, off.")] = "on",
    prefix_caching: Annotated[str, typer.Option(help="enable_prefix_caching values searched: off, on, or auto (off "
                                                "and on where requests can begin alike: conversations, a prompts "
                                                "file, --shared-prefix; else off).")] = "auto",
    prompt_lookup: Annotated[str, typer.Option(help="Prompt lookup decoding searched: off, TOKENS:NGRAM (the tokens "
                                               "a step proposes from the prompt's n-grams of up to NGRAM), or auto "
                                               "(off and 5:3 where the requests are a file's text, else off).")]
    = "auto",
    draft: Annotated[Path | None, typer.Option(help="A draft model (GGUF or GenAI folder, the model's tokenizer) "
                                               "for speculative decoding, searched off and on: it proposes 5 "
                                               "tokens a step, which the model verifies at once.")] = None,
    dq_group_size: Annotated[str, typer.Option(help="DYNAMIC_QUANTIZATION_GROUP_SIZE values searched (0: off).")]
    = "default",
    cache_gb: Annotated[str, typer.Option(help="SchedulerConfig.cache_size values searched: a KV cache of N GB made "
                                          "at once (default: grown as needed).")] = "default",
    instances: Annotated[str, typer.Option(help="Instances of the model searched: N pipelines, each in a process of "
                                           "its own pinned to its share of the cores, the users spread over them "
                                           "(with --users).")] = "1",
    search: Annotated[str, typer.Option(help="axes: GenAI left alone, then each axis's values on the best setting so "
                                        "far; grid: every combination of the values searched.")] = "axes",
    passes: Annotated[int, typer.Option(min=0, help="Passes side by side of the best settings and GenAI's defaults, "
                                        "at most (0: none; an interval needs 2 or more).")] = 4,
    most_users: Annotated[int, typer.Option(min=1, help="With --users and a budget: the most users the walk to what "
                                            "the answer and the baselines serve tries.")] = 256,
    most_rate: Annotated[float | None, typer.Option(min=0.0, help="With --rate and a budget: the most requests a "
                                                    "second the walk tries. \\[default: 64 times --rate]")] = None,
    walk: Annotated[bool, typer.Option(help="With a budget: walk to the most users (or requests a second) the answer "
                                       "and the baselines serve within it.")] = True,
    min_agreement: Annotated[float, typer.Option(min=0.0, max=1.0, help="Hold back a setting that computes in "
                                                 "another precision (KV cache, weights) where its next tokens along "
                                                 "f32 inference's own continuation of 16 prompts agree with f32's "
                                                 "less than this (0 keeps all).")] = 0.9,
    time_budget: TimeBudgetOption = None,
) -> None:
    """Find the GenAI scheduler and plugin settings that serve the most output tokens a second to these users within
    the TTFT and TPOT budget, against GenAI left alone (its scheduler default, LLMPipeline's and OVMS's), side by
    side."""
    from ov_tuner.workloads.llm.job import run_llm
    from ov_tuner.workloads.llm.measured import LlmTrial
    from ov_tuner.workloads.llm.present.document import print_llm
    from ov_tuner.workloads.llm.present.words import trial_line
    from ov_tuner.workloads.llm.schema import LlmBudget, LlmLoad
    from ov_tuner.workloads.llm.workload import LlmSpec

    budget = timed(time_budget)
    _check(passes, users, rate, prompts, conversations)
    users = 0 if rate > 0 else users or DEFAULT_USERS
    load = LlmLoad(users=users, rate=rate, arrival=arrival, think_ms=think_ms,
                   prompt_tokens=parse_span(prompt_tokens, "--prompt-tokens"),
                   output_tokens=parse_span(output_tokens, "--output-tokens"),
                   prompts_file=str(prompts) if prompts else None,
                   conversations_file=str(conversations) if conversations else None, shared_prefix=shared_prefix,
                   seconds=seconds, lead_in_s=lead_in)
    space = _space(batched_tokens=batched_tokens, kv_precision=kv_precision, threads=threads,
                   precision=precision, max_seqs=max_seqs, weights=weights, split_fuse=split_fuse,
                   prefix_caching=prefix_caching, dq_group_size=dq_group_size, cache_gb=cache_gb, instances=instances,
                   prompt_lookup=prompt_lookup)
    spec = LlmSpec(model=model, out=out_path, device=device.upper(), load=load,
                   budget=LlmBudget(ttft_ms, tpot_ms, percentile), space=space, passes=passes, walk=walk,
                   most_users=max(most_users, users), most_rate=max(most_rate, rate) if most_rate else None,
                   min_agreement=min_agreement, search=_search(search), draft=draft)

    def seen(trial: LlmTrial) -> None:
        out.print(trial_line(trial), highlight=False, soft_wrap=True)

    def making(weights: str) -> None:
        out.print(f"compressing the weights to {weights} with NNCF (once: kept in ov-tuner's cache)",
                  highlight=False)

    with stop_on_ctrl_c("trial") as stop, ConsoleWatch(out) as watch:
        answer = run_llm(spec, seen, stop, making, time_budget=budget, watch=watch)
    print_llm(out, answer, every_trial=False)
    if stop.is_set():
        out.print(f"stopped: every trial so far is in {out_path}; run the same command to go on")
        raise typer.Exit(EXIT_INTERRUPTED)


def _check(passes: int, users: int | None, rate: float, prompts: Path | None, conversations: Path | None) -> None:
    """The flags that cannot go together, one line each."""
    if passes == 1:
        raise BadInputError("--passes 1 gives no interval: give 0 for none, or 2 or more")
    if users is not None and rate > 0:
        raise BadInputError("give --users N (a closed loop) or --rate R (an open loop), not both")
    if conversations is not None and (prompts is not None or rate > 0):
        raise BadInputError("--conversations are sent by users, each carrying its own: give it with --users, without "
                            "--prompts or --rate")


def _search(text: str) -> LlmSearch:
    from ov_tuner.workloads.llm.search import LlmSearch

    try:
        return LlmSearch(text.strip().lower())
    except ValueError:
        raise BadInputError(f"--search {text}: give axes or grid") from None


def _space(*, batched_tokens: str, kv_precision: str, threads: str, precision: str, max_seqs: str, weights: str,
           split_fuse: str, prefix_caching: str, dq_group_size: str, cache_gb: str, instances: str,
           prompt_lookup: str) -> LlmSpace:
    """The settings searched, from their flags: each a list of values (default: GenAI's or the plugin's own)."""
    from ov_tuner.workloads.llm.schema import LlmSpace

    return LlmSpace(
        batched_tokens=parse_values(batched_tokens, "--batched-tokens", count_above_zero, "unlimited"),
        kv_cache_precisions=parse_values(kv_precision, "--kv-precision", str.lower),
        threads=parse_values(threads, "--threads", count_above_zero),
        inference_precisions=parse_values(precision, "--precision", _hint),
        max_seqs=tuple(v for v in parse_values(max_seqs, "--max-seqs", count_above_zero) if v is not None) or (256,),
        weights=parse_values(weights, "--weights", str.lower),
        split_fuse=parse_switches(split_fuse, "--split-fuse"),
        prefix_caching=() if prefix_caching.strip().lower() == "auto" else parse_switches(prefix_caching,
                                                                                          "--prefix-caching"),
        dq_group_sizes=parse_values(dq_group_size, "--dq-group-size", whole_number),
        cache_gbs=parse_values(cache_gb, "--cache-gb", count_above_zero),
        instances=tuple(v for v in parse_values(instances, "--instances", count_above_zero) if v is not None) or (1,),
        prompt_lookups=() if prompt_lookup.strip().lower() == "auto" else _lookups(prompt_lookup))


def _hint(text: str) -> str:
    """An inference precision as the plugin names it: 'fp32' (a sweep's word) is 'f32'."""
    word = text.strip().lower()
    return {"fp32": "f32", "fp16": "f16"}.get(word, word)


def _lookups(text: str) -> tuple[tuple[int, int], ...]:
    """'off,5:3' as prompt lookup's (tokens, n-gram) values searched; off is (0, 0)."""
    found = []
    for word in (w.strip().lower() for w in text.split(",") if w.strip()):
        tokens, _, ngram = word.partition(":")
        if word == "off":
            found.append((0, 0))
        elif tokens.isdigit() and ngram.isdigit() and int(tokens) > 0 and int(ngram) > 0:
            found.append((int(tokens), int(ngram)))
        else:
            raise BadInputError(f"--prompt-lookup {text}: give auto, or off and TOKENS:NGRAM values such as 5:3")
    return tuple(dict.fromkeys(found)) or ((0, 0),)
