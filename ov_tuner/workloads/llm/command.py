"""`ov-tuner llm`: tune an LLM served by OpenVINO GenAI for the users it serves within a latency budget."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ov_tuner.commandline.app import EXIT_INTERRUPTED, app, one_line_errors, out, stop_on_ctrl_c
from ov_tuner.commandline.clock import ConsoleWatch, TimeBudgetOption
from ov_tuner.commandline.clock import time_budget as timed
from ov_tuner.commandline.flags import count_above_zero, parse_span, parse_switches, parse_values, whole_number
from ov_tuner.commandline.inputs import own_flags
from ov_tuner.commandline.renamed import ROUNDS, Renamed, renamed_flags
from ov_tuner.errors import BadInputError
from ov_tuner.schema import Arrival
from ov_tuner.workloads.llm.options import (
    ArrivalOption,
    BatchedTokensOption,
    CacheGbOption,
    ConversationsOption,
    DeviceOption,
    DqGroupSizeOption,
    DraftOption,
    InstancesOption,
    KvPrecisionOption,
    LeadInOption,
    LlmModelArgument,
    MaxSeqsOption,
    MinAgreementOption,
    MostRateOption,
    MostUsersOption,
    OutPathOption,
    OutputTokensOption,
    PassesOption,
    PercentileOption,
    PrecisionOption,
    PrefixCachingOption,
    PromptLookupOption,
    PromptsOption,
    PromptTokensOption,
    RateOption,
    SearchOption,
    SecondsOption,
    SharedPrefixOption,
    SplitFuseOption,
    ThinkMsOption,
    ThreadsOption,
    TpotMsOption,
    TtftMsOption,
    UsersOption,
    WalkOption,
    WeightsOption,
)
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


@app.command(epilog="What each setting does and how a trial measures: docs/llm.md.")
@one_line_errors
def llm(
    model: LlmModelArgument,
    out_path: OutPathOption = Path("llm.db"),
    device: DeviceOption = "CPU",
    users: UsersOption = None,
    rate: RateOption = 0.0,
    arrival: ArrivalOption = Arrival.POISSON,
    think_ms: ThinkMsOption = 0.0,
    prompt_tokens: PromptTokensOption = "64-128",
    output_tokens: OutputTokensOption = "32-64",
    prompts: PromptsOption = None,
    conversations: ConversationsOption = None,
    shared_prefix: SharedPrefixOption = 0,
    seconds: SecondsOption = 4.0,
    lead_in: LeadInOption = 1.0,
    ttft_ms: TtftMsOption = None,
    tpot_ms: TpotMsOption = None,
    percentile: PercentileOption = 90.0,
    batched_tokens: BatchedTokensOption = "256,1024,4096",
    kv_precision: KvPrecisionOption = "default,u8,u4",
    threads: ThreadsOption = "default",
    precision: PrecisionOption = "default",
    max_seqs: MaxSeqsOption = "256",
    weights: WeightsOption = "default",
    split_fuse: SplitFuseOption = "on",
    prefix_caching: PrefixCachingOption = "auto",
    prompt_lookup: PromptLookupOption = "auto",
    draft: DraftOption = None,
    dq_group_size: DqGroupSizeOption = "default",
    cache_gb: CacheGbOption = "default",
    instances: InstancesOption = "1",
    search: SearchOption = "axes",
    passes: PassesOption = 4,
    most_users: MostUsersOption = 256,
    most_rate: MostRateOption = None,
    walk: WalkOption = True,
    min_agreement: MinAgreementOption = 0.9,
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
