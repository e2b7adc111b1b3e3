"""Conversations as a chat server receives them, and the prompt tokens a prefix cache answers: each turn's request
built from the conversation's history and the model's replies (constructed, without a model), the block rule the
hits are counted by, the roofline counting what the model computed, and the job on the tiny GGUF with a
conversations file (real GenAI). Nothing asserted bets on the host's speed."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from factories import rewind
from typer.testing import CliRunner

from ov_tuner.cli import app
from ov_tuner.errors import BadInputError
from ov_tuner.workloads.llm.answer import budget_miss
from ov_tuner.workloads.llm.answer_record import BASELINES, Latencies, SettingFigures
from ov_tuner.workloads.llm.conversations import (
    Conversation,
    ConversationRequests,
    read_conversations,
    turn_messages,
)
from ov_tuner.workloads.llm.fresh import trial_in_process
from ov_tuner.workloads.llm.measured import LlmTrial, Roofline
from ov_tuner.workloads.llm.model_file import read_llm
from ov_tuner.workloads.llm.prefix import PrefixBlocks, block_tokens
from ov_tuner.workloads.llm.results_file import LlmStore
from ov_tuner.workloads.llm.roofline import decode_bound
from ov_tuner.workloads.llm.schema import (
    OVMS_DEFAULT,
    PIPELINE_DEFAULT,
    SCHEDULER_DEFAULT,
    LlmBudget,
    LlmFormat,
    LlmLoad,
    LlmModel,
    LlmSetting,
    LlmSpace,
)
from ov_tuner.workloads.llm.search import along, leader, searched_axes

SHIPPED = Path(__file__).parent.parent / "scripts" / "demo_conversations.jsonl"


def _encode(messages: list[dict[str, str]]) -> np.ndarray:
    """A chat template of one character a token: each message as its role's first letter, ':', its content, '|'."""
    return np.array([ord(c) for m in messages for c in f"{m['role'][0]}:{m['content']}|"] + [ord(">")])


def _decode(ids: Sequence[int]) -> str:
    return "".join(chr(i) for i in ids)


def _text(prompt: np.ndarray) -> str:
    return "".join(chr(int(i)) for i in prompt)


def test_a_turn_carries_the_system_prompt_every_earlier_turn_and_the_replies_to_them() -> None:
    talk = Conversation("be brief", ("hi", "and then?", "thanks"), (4, 5, 6))
    assert turn_messages(talk, ["hello", "more"]) == [
        {"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"}, {"role": "user", "content": "and then?"},
        {"role": "assistant", "content": "more"}, {"role": "user", "content": "thanks"}]

    other = Conversation("be brief", ("yo",), (7,))
    requests = ConversationRequests([talk, other], _encode, _decode, np.arange(200, 300), seed=0)
    first = requests.next(0)
    assert _text(first.prompt) == "s:be brief|u:hi|>" and first.output_tokens == 4
    assert _text(requests.next(1).prompt) == "s:be brief|u:yo|>"  # the next user takes the next conversation
    requests.replied(0, [ord(c) for c in "hello"])
    second = requests.next(0)
    # the next turn repeats the last request whole, then the reply as the user read it, then the new turn
    assert _text(second.prompt) == "s:be brief|u:hi|a:hello|u:and then?|>" and second.output_tokens == 5
    assert _text(second.prompt).startswith(_text(first.prompt)[:-1])


def test_a_conversation_sent_again_carries_a_token_of_its_own_after_the_system_prompt() -> None:
    talk = Conversation("sys", ("a", "b"), (4, 4))
    requests = ConversationRequests([talk, Conversation("sys", ("c",), (4,))], _encode, _decode,
                                    np.arange(1000, 1100), seed=0)
    requests.next(0)
    requests.replied(0, [ord("x")])
    assert _text(requests.next(0).prompt) == "s:sys|u:a|a:x|u:b|>"
    requests.replied(0, [ord("y")])
    assert _text(requests.next(0).prompt) == "s:sys|u:c|>"  # done: the file's next conversation
    requests.replied(0, [ord("z")])
    again = [requests.next(0).prompt]  # the file's first again, a second time through
    requests.replied(0, [ord("x")])
    again.append(requests.next(0).prompt)
    head = len("s:sys|u:")  # what the conversations' first turns share: the system prompt, the template's opening
    leads = [int(p[head]) for p in again]
    assert all(1000 <= lead < 1100 for lead in leads) and leads[0] == leads[1]  # one token for the whole conversation
    assert _text(np.delete(again[1], head)) == "s:sys|u:a|a:x|u:b|>"


def test_a_turn_never_answered_ends_its_users_conversation() -> None:
    talks = [Conversation("", ("one", "two"), (4, 4)), Conversation("", ("three",), (4,))]
    requests = ConversationRequests(talks, _encode, _decode, np.arange(500, 600), seed=0)
    requests.next(3)  # cancelled: no reply comes
    assert _text(requests.next(3).prompt) == "u:three|>"


def test_a_conversations_file_is_read_with_its_system_prompt_and_a_bad_line_names_it(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in [
        {"system": "You help."}, {"turns": ["a", "b"], "output_tokens": 8},
        {"turns": ["c"], "output_tokens": [9], "system": "Own."}, {"system": "Later."}, {"turns": ["d"],
                                                                                         "output_tokens": 3}]))
    assert read_conversations(path) == [Conversation("You help.", ("a", "b"), (8, 8)),
                                        Conversation("Own.", ("c",), (9,)), Conversation("Later.", ("d",), (3,))]
    for bad, said in (({"turns": [], "output_tokens": 8}, '"turns" is not a list'),
                      ({"turns": ["a", "b"], "output_tokens": [8]}, 'has "output_tokens" [8]'),
                      ({"turns": ["a"], "output_tokens": 0}, "a whole number above 0"),
                      ({"turns": ["a", ""], "output_tokens": 8}, '"turns" is not some text')):
        path.write_text(json.dumps({"system": "s"}) + "\n" + json.dumps(bad) + "\n")
        with pytest.raises(BadInputError, match="line 2") as raised:
            read_conversations(path)
        assert said in str(raised.value) and "\n" not in str(raised.value)


def test_the_shipped_conversations_are_many_real_ones_behind_one_system_prompt() -> None:
    talks = read_conversations(SHIPPED)
    assert len(talks) >= 48 and all(2 <= len(t.turns) <= 6 for t in talks)
    assert len({t.system for t in talks}) == 1 and len(talks[0].system.split()) >= 200
    assert sum(any(len(turn.split()) > 80 for turn in t.turns) for t in talks) >= 12  # some quote a document


def test_the_cache_answers_whole_blocks_an_earlier_request_left_short_of_the_last_token() -> None:
    assert block_tokens("CPU") == 32 and block_tokens("GPU.1") == 16
    blocks = PrefixBlocks(4)
    first = np.arange(10)
    assert blocks.hits(first) == 0
    blocks.hold(first)  # its prompt computed: blocks 0-3 and 4-7 kept, 8-9 not a whole block
    assert blocks.hits(np.arange(12)) == 8
    assert blocks.hits(np.arange(8)) == 4  # never the whole prompt: its last token is computed
    assert blocks.hits(np.array([0, 1, 2, 9, 4, 5, 6, 7, 8])) == 0  # a block differs: nothing after it either
    reply = np.concatenate([first, [50, 51, 52, 53, 54, 55]])  # the prompt and its reply, once the request ended
    blocks.hold(reply)
    assert blocks.hits(np.concatenate([reply, [60, 61]])) == 16


def test_the_roofline_counts_the_tokens_the_model_computed_not_those_the_cache_answered() -> None:
    model = LlmModel(path="m.gguf", format=LlmFormat.GGUF, sha256="0", architecture="llama", layers=2, width=256,
                     vocab=1000, heads=4, kv_heads=2, feed_forward=512)
    roofline = Roofline(memory_gbs=10.0, matmul_gflops=((None, "bf16", 100.0),), kv_precision="u8",
                        weight_bytes=((None, 90_000_000),))
    plain = LlmTrial(OVMS_DEFAULT, ttft_ms=np.array([1.0]), tpot_ms=np.array([1.0]), window_s=2.0, window_tokens=400,
                     window_steps=100, window_prompt_tokens=3000, window_context_tokens=50_000)
    cached = LlmTrial(OVMS_DEFAULT, ttft_ms=np.array([1.0]), tpot_ms=np.array([1.0]), window_s=2.0,
                      window_tokens=400, window_steps=100, window_prompt_tokens=3000, window_cached_tokens=2400,
                      window_context_tokens=50_000)
    every, computed = (decode_bound(model, OVMS_DEFAULT, [t], roofline) for t in (plain, cached))
    assert every is not None and computed is not None
    assert every.tokens_per_s == 1700 and computed.tokens_per_s == 500  # 400 outputs and 600 prompt tokens, over 2 s
    assert computed.gflops == pytest.approx(every.gflops * 500 / 1700)
    assert computed.kv_bytes_per_step == every.kv_bytes_per_step  # the cache's blocks are read all the same


def test_prefix_caching_is_searched_where_requests_can_begin_alike() -> None:
    space = LlmSpace()
    assert space.for_traffic(LlmLoad()).prefix_caching == (False,)  # generated prompts share nothing
    for load in (LlmLoad(conversations_file="c.jsonl"), LlmLoad(prompts_file="p.jsonl"), LlmLoad(shared_prefix=64)):
        assert space.for_traffic(load).prefix_caching == (False, True)
    assert LlmSpace(prefix_caching=(True,)).for_traffic(LlmLoad(conversations_file="c")).prefix_caching == (True,)


def test_conversations_are_tuned_with_prefix_caching_and_ovms_left_alone_by_default(tiny_gguf: Path,
                                                                                     tmp_path: Path) -> None:
    db, talks = tmp_path / "chat.db", tmp_path / "talks.jsonl"
    system = SHIPPED.read_text().splitlines()[0]  # the shipped system prompt, a few hundred tokens
    talks.write_text("\n".join([system, *(json.dumps({"turns": [f"Question {n}?", "Go on.", "Shorter, please."],
                                                       "output_tokens": 8}) for n in range(4))]))
    result = CliRunner().invoke(app, [
        "llm", str(tiny_gguf), "--out", str(db), "--conversations", str(talks), "--users", "3", "--seconds", "0.5",
        "--lead-in", "0.1", "--batched-tokens", "256", "--kv-precision", "default", "--passes", "2",
        "--ttft-ms", "60000", "--most-users", "3", "--draft", str(tiny_gguf)])
    assert result.exit_code == 0, result.output
    with LlmStore(db, create=False) as store:
        trials = store.llm_trials()
        job = store.llm_job()
    assert job is not None and job.load.conversations_file == str(talks)
    searched = {t.setting: t for t in trials if t.searched}
    # GenAI left alone three ways; with the traffic repeating its prefixes, prefix caching is searched (at 256
    # batched tokens it is OVMS's default), then, on written text, prompt lookup on the better of the two, then the
    # draft model given on the best so far
    lookups = {dataclasses.replace(s, lookup_tokens=5, lookup_ngram=3) for s in (SCHEDULER_DEFAULT, OVMS_DEFAULT)}
    drafted = [s for s in searched if s.draft is not None]
    assert set(BASELINES) < set(searched) and len(searched) == 5 and len(drafted) == 1
    assert set(searched) - set(BASELINES) - set(drafted) <= lookups and drafted[0].draft_tokens == 5
    ran = [t for t in trials if t.ok]
    assert all(t.cached_tokens == 0 for t in ran if not t.setting.enable_prefix_caching)
    # with prefix caching, every turn after the first finds at least the system prompt's whole blocks
    assert all(0 < t.cached_tokens < t.prompt_tokens for t in ran if t.setting.enable_prefix_caching)
    assert all(t.window_cached_tokens <= t.window_prompt_tokens for t in ran)
    assert {OVMS_DEFAULT, PIPELINE_DEFAULT, SCHEDULER_DEFAULT} <= {t.setting for t in trials if t.users is not None}
    assert "conversations from" in result.output and "of prompt tokens answered by the prefix cache" in result.output
    assert "prefix hits " in result.output
    # the search's fastest speculative setting against its twin, in passes side by side at one user, and at the users
    # given in the rounds where both went to them (the speculative one always does), else in passes of their own
    paired = {(t.setting.speculative, t.users, t.pass_number) for t in trials if t.by_load}
    speculative = next(t.setting for t in trials if t.by_load and t.setting.speculative)
    in_rounds = {speculative, speculative.without_speculation()} <= {t.setting for t in trials if t.in_rounds}
    assert speculative in {t.setting for t in trials if t.in_rounds}
    given = set() if in_rounds else {(on, 3, n) for on in (True, False) for n in (0, 1)}
    assert paired == {(on, 1, n) for on in (True, False) for n in (0, 1)} | given
    assert "by load" in result.output and "output tokens/s at 1 user" in result.output
    assert "output tokens/s at 3 users" in result.output


def test_conversations_with_a_rate_or_prompts_are_one_line(tiny_gguf: Path, tmp_path: Path) -> None:
    for extra in (["--rate", "2"], ["--prompts", str(SHIPPED)]):
        result = CliRunner().invoke(app, ["llm", str(tiny_gguf), "--out", str(tmp_path / "x.db"), "--conversations",
                                          str(SHIPPED), *extra])
        assert result.exit_code != 0 and "--conversations are sent by users" in result.output
        assert not (tmp_path / "x.db").exists()


def test_a_conversation_past_the_context_is_one_line_before_anything_runs(tiny_gguf: Path, tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps({"turns": ["word " * 40, "more"], "output_tokens": 100_000}) + "\n")
    result = CliRunner().invoke(app, ["llm", str(tiny_gguf), "--out", str(tmp_path / "x.db"), "--conversations",
                                      str(path)])
    assert result.exit_code != 0 and "conversation 1 needs " in result.output
    assert "context length" in result.output and not (tmp_path / "x.db").exists()


def test_a_v19_llm_file_reads_no_hits_and_shows_as_before(llm_db: Path, tmp_path: Path) -> None:
    import shutil
    import sqlite3

    old = tmp_path / "v19.db"
    shutil.copy(llm_db, old)
    with sqlite3.connect(old) as db:  # as ov-tuner wrote it before the prefix cache's hits were counted
        for column in ("cached_tokens", "window_cached_tokens"):
            db.execute(f"ALTER TABLE llm_trials DROP COLUMN {column}")
        rewind(db, 19)
    with LlmStore(old, create=False) as store:
        trials = store.llm_trials()
    assert trials and all(t.cached_tokens == 0 and t.hit_rate == 0.0 for t in trials)
    shown = CliRunner().invoke(app, ["show", str(old)])
    assert shown.exit_code == 0 and "deploy " in shown.output


def _figures(setting: LlmSetting, tokens_per_s: float, ttft_ms: float, tpot_ms: float, meets: bool) -> SettingFigures:
    return SettingFigures(setting=setting, trials=1, tokens_per_s=tokens_per_s, requests_per_s=1.0,
                          latencies=Latencies((ttft_ms,) * 3, (tpot_ms,) * 3), at_budget=(ttft_ms, tpot_ms),
                          meets=meets, kv_cache_bytes=0, max_cache_usage=0.0, peak_rss_bytes=0, first_request_ms=0.0)


def test_the_search_steps_axis_by_axis_from_the_best_so_far_holding_what_was_pinned() -> None:
    budget = LlmBudget(ttft_ms=1000, tpot_ms=50)
    fast_missing, slow_meeting, closest = (_figures(SCHEDULER_DEFAULT, 900, 2000, 40, False),
                                           _figures(OVMS_DEFAULT, 300, 500, 45, True),
                                           _figures(PIPELINE_DEFAULT, 800, 1100, 52, False))
    assert leader([fast_missing, slow_meeting, closest], budget) == slow_meeting  # within the budget beats faster
    # none within it: the one that misses it least (TPOT 52 of 50 ms, TTFT 1.1 s of 1 s), not the fastest
    assert leader([fast_missing, closest], budget) == closest and budget_miss(closest, budget) == pytest.approx(1.1)
    space = LlmSpace(batched_tokens=(256, 4096), kv_cache_precisions=("u8",), prefix_caching=(False, True))
    assert [name for name, _ in searched_axes(space)] == ["enable_prefix_caching", "max_num_batched_tokens"]
    # each value of one axis on the best so far, the KV precision the user pinned held in every one
    assert along(space, OVMS_DEFAULT, "max_num_batched_tokens", (256, 4096)) == [
        LlmSetting(max_num_batched_tokens=256, enable_prefix_caching=True, kv_cache_precision="u8"),
        LlmSetting(max_num_batched_tokens=4096, enable_prefix_caching=True, kv_cache_precision="u8")]


def test_a_trial_with_prompt_lookup_holds_every_requests_length_on_the_files_requests(tiny_gguf: Path,
                                                                                       tmp_path: Path) -> None:
    prompts = tmp_path / "p.jsonl"
    prompts.write_text("\n".join(json.dumps({"prompt": f"repeat after me: one two three {n} one two three",
                                             "output_tokens": 8}) for n in range(6)))
    load = LlmLoad(users=2, seconds=0.4, lead_in_s=0.1, prompts_file=str(prompts))
    lookup = LlmSetting(lookup_tokens=5, lookup_ngram=3)
    trial = trial_in_process(read_llm(tiny_gguf), "CPU", lookup, load)
    assert trial.ok, trial.error
    assert trial.output_tokens == 8 * trial.ttft_ms.size  # proposed tokens kept or not, each request says 8
    assert LlmSpace().for_traffic(load).prompt_lookups == ((0, 0), (5, 3))  # searched on a file's text by default
    assert LlmSpace().for_traffic(LlmLoad()).prompt_lookups == ((0, 0),)  # never on generated tokens


@pytest.mark.parametrize("speculation", ["lookup", "draft"])
def test_the_python_form_serves_with_prefix_caching_and_speculative_decoding(tiny_gguf: Path, tmp_path: Path,
                                                                             speculation: str) -> None:
    from ov_tuner.workloads.llm.answer import llm_answer
    from ov_tuner.workloads.llm.ir import served_model
    from ov_tuner.workloads.llm.measured import StoredLlm
    from ov_tuner.workloads.llm.present.forms import llm_python
    from ov_tuner.workloads.llm.present.servers import llm_ovms
    from ov_tuner.workloads.llm.schema import LlmJob

    draft = served_model(read_llm(tiny_gguf)).path  # the model as its own draft: the same tokenizer
    chosen = (LlmSetting(enable_prefix_caching=True, lookup_tokens=4, lookup_ngram=2) if speculation == "lookup" else
              LlmSetting(enable_prefix_caching=True, draft=draft, draft_tokens=3))
    met = np.full(10, 5.0)
    trials = tuple(LlmTrial(s, pass_number=p, ttft_ms=met, tpot_ms=met / 5, output_tokens=int(f) + p, wall_s=1.0)
                   for p in range(3) for s, f in ((chosen, 2000), (SCHEDULER_DEFAULT, 1000),
                                                  (PIPELINE_DEFAULT, 990), (OVMS_DEFAULT, 980)))
    job = LlmJob(read_llm(tiny_gguf), "CPU", LlmLoad(output_tokens=(4, 4)), LlmBudget(), "x")
    answer = llm_answer(StoredLlm("r.db", None, job, trials, ()))
    assert answer.answer is not None and answer.answer.setting == chosen
    form = tmp_path / "serve.py"
    form.write_text(llm_python(answer))
    ran = subprocess.run([sys.executable, str(form), "one two three one two"], capture_output=True, text=True,
                         timeout=300, check=True)
    served = json.loads(ran.stdout.strip().splitlines()[-1])
    assert served["scheduler"]["enable_prefix_caching"] is True
    assert isinstance(served["text"], str) and served["text"]
    graph, steps = llm_ovms(answer, "graph.pbtxt")
    assert "enable_prefix_caching: true" in graph
    if speculation == "lookup":  # OVMS reads the switch from plugin_config, a JSON true
        assert served["properties"] == {"prompt_lookup": True}
        assert 'plugin_config: \'{"prompt_lookup": true}\'' in graph
        return
    # the pipeline is built with the draft: pointed at a folder that is not there, it fails
    form.write_text(llm_python(answer).replace(repr(draft), repr(str(tmp_path / "gone"))))
    refused = subprocess.run([sys.executable, str(form)], capture_output=True, text=True, timeout=300, check=False)
    assert refused.returncode != 0 and "gone" in refused.stderr
    assert 'draft_models_path: "' in graph and "/draft/" in steps[0]  # beside the model, where the graph says


def test_a_draft_model_is_searched_off_and_on_and_one_of_another_vocabulary_is_one_line(
        tiny_gguf: Path, tmp_path: Path) -> None:
    from ov_tuner.workloads.llm.gguf import LlamaShape, write_llama_gguf
    from ov_tuner.workloads.llm.ir import served_model

    draft = served_model(read_llm(tiny_gguf)).path
    space = LlmSpace(batched_tokens=(256,), kv_cache_precisions=(None,), prefix_caching=(False,),
                     prompt_lookups=((0, 0), (5, 3)), drafts=((None, 0), (draft, 5)))
    # the two ways to speculate exclude each other: a grid holds the draft alone, never both
    assert [(s.lookup_tokens, s.draft is not None) for s in space.settings()] == [(0, False), (0, True), (5, False)]
    drafted = LlmSetting().with_value("prompt_lookup", (5, 3)).with_value("draft", (draft, 5))
    assert drafted.lookup == (0, 0) and drafted.assistant == (5, 0) and drafted.speculative
    assert drafted.without_speculation() == SCHEDULER_DEFAULT
    trial = trial_in_process(read_llm(tiny_gguf), "CPU", drafted, LlmLoad(users=2, seconds=0.4, lead_in_s=0.1,
                                                                          output_tokens=(6, 6)))
    assert trial.ok, trial.error
    assert trial.output_tokens == 6 * trial.ttft_ms.size  # proposals kept or not, each request says its 6
    other = write_llama_gguf(tmp_path / "other.gguf", LlamaShape(layers=1, width=64, heads=2, kv_heads=1,
                                                                 feed_forward=128, vocab=1000))
    result = CliRunner().invoke(app, ["llm", str(tiny_gguf), "--out", str(tmp_path / "x.db"), "--draft", str(other)])
    assert result.exit_code != 0 and not (tmp_path / "x.db").exists()
    assert "--draft" in result.output and "vocabulary" in result.output and len(result.output.splitlines()) == 1


def test_a_verdict_by_load_says_up_to_which_load_a_setting_pays_and_from_which_it_is_slower() -> None:
    from ov_tuner.engine.boundary import boundary
    from ov_tuner.workloads.llm.by_load import by_load
    from ov_tuner.workloads.llm.present.words import by_load_text

    lookup = LlmSetting(lookup_tokens=5, lookup_ngram=3)

    def passes(ratio: float) -> list[tuple[float, float]]:
        return [(100 * ratio * (1 + 0.01 * n), 100.0) for n in (-1, 0, 1, 0)]

    def met(*loads: float) -> dict[float, tuple[tuple[float, float], bool]]:
        return {load: ((100.0, 40.0), True) for load in loads}

    # at 8 users its requests' p90 TPOT is 62 ms, outside a 50 ms budget
    verdict = by_load({1: passes(1.3), 2: passes(1.2), 4: passes(0.8), 8: passes(0.7)},
                      {**met(1, 2, 4), 8: ((120.0, 62.0), False)})
    assert [p.load for p in verdict.at] == [1, 2, 4, 8] and verdict.at[0].ratio.value == pytest.approx(1.3, rel=0.01)
    assert verdict.pays_up_to == 2 and verdict.slower_from == 4 and verdict.at_load(4) is verdict.at[2]
    # a load that tells nothing apart ends the run of loads it pays at, though a larger load reads faster again
    noisy = by_load({1: passes(1.3), 2: [(140.0, 100.0), (70.0, 100.0), (130.0, 100.0)], 4: passes(1.3), 8: [(1, 1)]},
                    met(1, 2, 4, 8))
    assert noisy.pays_up_to == 1 and noisy.slower_from is None and [p.load for p in noisy.at] == [1, 2, 4]
    said = by_load_text(lookup, SCHEDULER_DEFAULT, verdict, closed=True)
    assert said.startswith("prompt lookup (5 tokens from 3-grams) over GenAI's scheduler default: +30.0% (95%: ")
    assert said.endswith("at 8 users, outside the budget (p90 TTFT 120 ms, TPOT 62.0 ms); pays up to 2 users, slower "
                         "from 4 users") and said.count("outside the budget") == 1
    assert by_load({1: passes(0.9)}, met(1)).pays_up_to is None
    # told faster at 2 users but outside the budget there: it pays up to 1 user only
    assert by_load({1: passes(1.3), 2: passes(1.3)}, {**met(1), 2: ((90.0, 55.0), False)}).pays_up_to == 1
    alike = by_load({1: [(140.0, 100.0), (70.0, 100.0), (130.0, 100.0)]}, met(1))
    assert by_load_text(lookup, SCHEDULER_DEFAULT, alike, closed=True).endswith("no different; told apart at no load "
                                                                               "measured")
    # where the setting was walked, what its own walk served closes the line
    walked = boundary([(16.0, False), (12.0, False), (10.0, False), (9.0, True), (9.0, True), (9.0, True),
                       (10.0, False), (10.0, False)], whole=True)
    assert by_load_text(lookup, SCHEDULER_DEFAULT, verdict, closed=True, walk=walked).endswith(
        f"slower from 4 users; its own walk: 9 users (95%: {walked.low:g}..{walked.high:g}) within the budget")


def test_a_verdict_by_load_is_read_from_the_passes_side_by_side_at_each_load_and_nothing_else() -> None:
    from ov_tuner.engine.boundary import boundary
    from ov_tuner.workloads.llm.answer import round_table, walk_windows
    from ov_tuner.workloads.llm.by_load import deciding_loads, knob_by_load

    lookup = LlmSetting(lookup_tokens=5, lookup_ngram=3)
    twin = lookup.without_speculation()
    assert twin == SCHEDULER_DEFAULT and lookup.speculative and not twin.speculative

    def trial(setting: LlmSetting, tokens: int, number: int | None, users: int | None, tpot: float = 5.0) -> LlmTrial:
        return LlmTrial(setting, pass_number=number, users=users, ttft_ms=np.array([10.0]), tpot_ms=np.array([tpot]),
                        window_tokens=tokens, window_s=1.0)

    ratios = {1: 1.3, 4: 1.0, 8: 0.7}  # the twin serves 100 tokens/s at every load; the knob these times it
    trials = [trial(SCHEDULER_DEFAULT, 100, 0, None), trial(lookup, 999, None, None),  # a round, the search
              trial(SCHEDULER_DEFAULT, 100, None, 8),  # a walk's window
              *(trial(side, round((100 * r if side == lookup else 100) * (1 + 0.01 * n)), n, users,
                      60.0 if side == lookup and users == 8 else 5.0)  # its TPOT at 8 users beyond 50 ms
                for users, r in ratios.items() for n in range(3) for side in (lookup, twin)),
              trial(lookup, 500, 3, 1)]  # a pass whose twin did not run: no pair
    knob = knob_by_load(trials, lookup, LlmBudget(ttft_ms=1000, tpot_ms=50), 8)
    assert knob.twin == SCHEDULER_DEFAULT and [p.load for p in knob.verdict.at] == [1, 4, 8]
    assert all(p.ratio.passes == 3 for p in knob.verdict.at)
    assert knob.verdict.pays_up_to == 1 and knob.verdict.slower_from == 8
    one = knob.verdict.at_load(1)
    assert one is not None and one.ratio.value == pytest.approx(1.3, rel=0.02) and one.meets
    eight = knob.verdict.at_load(8)  # its own passes pooled there, against the budget
    assert eight is not None and not eight.meets and eight.at_budget == (10.0, 60.0)
    # the rounds and the walks read none of them
    assert round_table(trials, [SCHEDULER_DEFAULT]).shape == (1, 1)
    assert walk_windows(trials, SCHEDULER_DEFAULT, LlmLoad(users=4), LlmBudget()) == [(4.0, True), (8.0, True)]
    # one user, the load given and the edge of the budget, each once; an edge within a quarter of the load given is
    # left to it, one further is measured on either side
    assert deciding_loads(8, True, 11.0) == [1.0, 8, 11.0] and deciding_loads(1, True, None) == [1.0]
    assert deciding_loads(8, True, 9.0) == deciding_loads(8, True, 6.0) == [1.0, 8]
    assert deciding_loads(8, True, 5.0) == [1.0, 5.0, 8] and deciding_loads(2.5, False, None) == [2.5]
    # an edge above the high end of the setting's own walk is left out: that walk told it misses the budget there
    own = boundary([(16.0, False), (12.0, False), (10.0, False), (9.0, True), (9.0, True), (9.0, True), (10.0, False),
                    (10.0, False)], whole=True)
    assert own.high < 14 and deciding_loads(8, True, 14.0, own) == [1.0, 8]
    assert deciding_loads(8, True, own.high, own) == [1.0, 8, own.high]
    assert deciding_loads(8, True, 5.0, own) == [1.0, 5.0, 8]
    # a walk that met the budget at every load it tried bounds nothing
    ceiling = boundary([(16.0, True), (32.0, True)], whole=True)
    assert ceiling.at_ceiling and deciding_loads(8, True, 32.0, ceiling) == [1.0, 8, 32.0]


def test_the_fastest_speculative_setting_goes_to_the_rounds_and_its_verdict_at_the_load_given_is_read_there() -> None:
    """Prompt lookup missed the TPOT budget in its one search trial at the budget's edge: it still goes to the rounds,
    judged at the user's load beside the others (and may lead there: a held-back one does not go), and where its
    twin went too, the rounds' passes are its verdict at that load; the by-load passes give the other loads."""
    from ov_tuner.workloads.llm.answer import contenders_of, llm_answer, searched_figures
    from ov_tuner.workloads.llm.by_load import knob_by_load
    from ov_tuner.workloads.llm.measured import StoredLlm
    from ov_tuner.workloads.llm.schema import LlmFormat, LlmJob, LlmModel

    budget = LlmBudget(ttft_ms=1000, tpot_ms=50)
    fast, lookup = LlmSetting(max_num_batched_tokens=1024), OVMS_DEFAULT.with_value("prompt_lookup", (5, 3))
    assert lookup.speculative and lookup.without_speculation() == OVMS_DEFAULT

    def trial(setting: LlmSetting, tokens: float, number: int | None = None, users: int | None = None,
              tpot: float = 40.0) -> LlmTrial:
        return LlmTrial(setting, pass_number=number, users=users, ttft_ms=np.full(10, 100.0),
                        tpot_ms=np.full(10, tpot), window_tokens=round(tokens), window_s=1.0)

    search = [trial(s, f) for s, f in ((SCHEDULER_DEFAULT, 70), (PIPELINE_DEFAULT, 120), (OVMS_DEFAULT, 125),
                                       (fast, 130))] + [trial(lookup, 118, tpot=60.4)]
    searched = searched_figures(search, budget)
    assert not next(f for f in searched if f.setting == lookup).meets
    assert contenders_of(searched, 2) == [fast, lookup, *BASELINES]
    assert contenders_of(searched, 2, held={lookup}) == [fast, *BASELINES]
    # the rounds at 8 users: lookup 1.25 times its twin's tokens/s in each pass, within the budget pooled
    rounds = [trial(s, f * (1 + 0.01 * n), n) for n in range(3)
              for s, f in ((fast, 130), (lookup, 156), *((b, f) for b, f in ((SCHEDULER_DEFAULT, 70),
                                                                              (PIPELINE_DEFAULT, 120),
                                                                              (OVMS_DEFAULT, 125))))]
    at_one = [trial(s, f * (1 + 0.01 * n), n, users=1) for n in range(3) for s, f in ((lookup, 27), (OVMS_DEFAULT, 30))]
    knob = knob_by_load([*search, *rounds, *at_one], lookup, budget, 8)
    assert [p.load for p in knob.verdict.at] == [1, 8] and all(p.ratio.passes == 3 for p in knob.verdict.at)
    eight = knob.verdict.at_load(8)
    assert eight is not None and eight.ratio.value == pytest.approx(1.25, rel=0.01) and eight.faster and eight.meets
    # where a by-load pass ran at the load given (a file written before), the rounds' are not read there
    at_eight = [trial(s, f, n, users=8) for n in range(3) for s, f in ((lookup, 100), (OVMS_DEFAULT, 100))]
    older = knob_by_load([*search, *rounds, *at_eight], lookup, budget, 8).verdict.at_load(8)
    assert older is not None and older.ratio.value == pytest.approx(1.0)
    # told faster at the user's load, within the budget: deployed
    job = LlmJob(LlmModel("m.gguf", LlmFormat.GGUF, "0" * 64, "llama", 2, 8, 10), "CPU", LlmLoad(users=8), budget, "x")
    answer = llm_answer(StoredLlm("r.db", None, job, tuple([*search, *rounds, *at_one]), ()))
    assert answer.answer is not None and answer.answer.setting == lookup
    assert [k.setting for k in answer.by_load] == [lookup]


def test_a_speculative_setting_tied_with_another_contender_is_not_deployed() -> None:
    """Among contenders not told apart, the one that proposes no tokens: speculation costs once the device is busy."""
    from ov_tuner.workloads.llm.answer import llm_answer
    from ov_tuner.workloads.llm.measured import StoredLlm
    from ov_tuner.workloads.llm.schema import LlmFormat, LlmJob, LlmModel

    fast = LlmSetting(max_num_batched_tokens=1024)
    lookup = fast.with_value("prompt_lookup", (5, 3))
    trials = [LlmTrial(s, pass_number=n, ttft_ms=np.full(10, 5.0), tpot_ms=np.full(10, 1.0),
                       window_tokens=round(f), window_s=1.0, kv_cache_bytes=kv)
              for n in range(4) for s, f, kv in ((lookup, 1000 + 60 * (n % 2), 10), (fast, 1030, 1000),
                                                 (SCHEDULER_DEFAULT, 500, 1000))]
    job = LlmJob(LlmModel("m.gguf", LlmFormat.GGUF, "0" * 64, "llama", 2, 8, 10), "CPU", LlmLoad(), LlmBudget(), "x")
    answer = llm_answer(StoredLlm("r.db", None, job, tuple(trials), ()))
    assert answer.answer is not None and answer.answer.setting == fast  # though its KV cache is the larger


def test_a_lossless_knob_that_changes_the_answers_beyond_rounding_is_held_back_with_the_figure() -> None:
    from ov_tuner.workloads.llm.agreement import LOSSLESS_MARGIN, lossless_twin, rounding_twin
    from ov_tuner.workloads.llm.answer import llm_answer
    from ov_tuner.workloads.llm.measured import LlmOutputs, StoredLlm
    from ov_tuner.workloads.llm.present.words import answer_lines
    from ov_tuner.workloads.llm.schema import LlmJob

    lookup = LlmSetting(enable_prefix_caching=True, lookup_tokens=5, lookup_ngram=3)
    assert lossless_twin(lookup) == SCHEDULER_DEFAULT and lossless_twin(OVMS_DEFAULT) == SCHEDULER_DEFAULT
    assert rounding_twin(lookup) == LlmSetting(max_num_batched_tokens=1024)
    said = tuple(tuple(range(p, p + 8)) for p in range(16))
    parted = tuple(s[:4] + (99,) * 4 for s in said)  # rounding parts every text halfway: the floor is 0.5
    outputs = (LlmOutputs(SCHEDULER_DEFAULT, said), LlmOutputs(LlmSetting(max_num_batched_tokens=1024), parted),
               LlmOutputs(OVMS_DEFAULT, said), LlmOutputs(lookup, tuple((99,) * 8 for _ in said)))
    met = np.full(10, 5.0)
    trials = tuple(LlmTrial(s, pass_number=p, ttft_ms=met, tpot_ms=met / 5, output_tokens=f + (p or 0), wall_s=1.0)
                   for p in (None, 0, 1, 2) for s, f in ((lookup, 3000), (SCHEDULER_DEFAULT, 1000),
                                                         (PIPELINE_DEFAULT, 990), (OVMS_DEFAULT, 2000)))
    job = LlmJob(LlmModel("m.gguf", LlmFormat.GGUF, "0" * 64, "llama", 2, 8, 10), "CPU", LlmLoad(), LlmBudget(), "x")
    answer = llm_answer(StoredLlm("r.db", None, job, trials, outputs))
    assert answer.lossless[OVMS_DEFAULT].alike == 1.0 and answer.lossless[OVMS_DEFAULT].floor == 0.5
    assert answer.lossless[lookup].alike == 0.0 < 0.5 - LOSSLESS_MARGIN  # beyond rounding: held back, though fastest
    assert answer.answer is not None and answer.answer.setting == OVMS_DEFAULT
    words = dict(answer_lines(answer))
    assert "100.0% alike with the same setting's without prefix caching (rounding alone: 50.0%)" in words["outputs"]
    assert ("greedy text 0.0% alike with the same setting's without prefix caching and prompt lookup, where rounding "
            "alone gives 50.0%") in words["held back"]


def test_the_shipped_documents_are_long_requests_to_work_on_a_document() -> None:
    from ov_tuner.workloads.llm.prompts import read_prompts

    lines = read_prompts(SHIPPED.parent / "demo_documents.jsonl")
    assert len(lines) >= 12 and all(line.messages[-1][0] == "user" for line in lines)
    assert min(len(line.messages[-1][1].split()) for line in lines) >= 700  # 1-4k tokens through a chat template
