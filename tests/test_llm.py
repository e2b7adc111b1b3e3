"""The LLM workload on a tiny random-weight LLaMA written as a GGUF (2 layers, width 256, F16 matrices): real GenAI,
real trials. What is asserted holds on any host: counts, what is stored, what each form runs and reads back, the
one-line refusals; never that one setting outruns another."""

from __future__ import annotations

import dataclasses
import json
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from factories import ov_tuner, rewind, start_until
from typer.testing import CliRunner

from ov_tuner.cli import app
from ov_tuner.devices.roofline import matmul_gflops, memory_gbs
from ov_tuner.engine.boundary import REPEATS, boundary, next_load
from ov_tuner.errors import BadInputError, IncompatibleResultsError
from ov_tuner.schema import Arrival, Box, Environment
from ov_tuner.workloads.llm.agreement import agreement, changes_precision
from ov_tuner.workloads.llm.answer import llm_answer, walk_windows
from ov_tuner.workloads.llm.answer_record import BASELINES, Rule
from ov_tuner.workloads.llm.fresh import trial_in_process
from ov_tuner.workloads.llm.gguf import LlamaShape, write_llama_gguf
from ov_tuner.workloads.llm.instances import core_shares, merged
from ov_tuner.workloads.llm.ir import served_model
from ov_tuner.workloads.llm.measured import LlmHarness, LlmOutputs, LlmTrial, Roofline, StoredLlm
from ov_tuner.workloads.llm.model_file import read_llm
from ov_tuner.workloads.llm.objective import cannot_change
from ov_tuner.workloads.llm.present.answer_json import llm_answer_json
from ov_tuner.workloads.llm.present.forms import DEFAULT_PROMPT
from ov_tuner.workloads.llm.present.words import answer_lines
from ov_tuner.workloads.llm.process import READY, asked_json, child_command, ended, outputs_in_process
from ov_tuner.workloads.llm.prompts import file_requests, generated_requests, line_encoder, read_prompts
from ov_tuner.workloads.llm.results_file import LlmStore
from ov_tuner.workloads.llm.roofline import Bound, DecodeBound, decode_bound
from ov_tuner.workloads.llm.schema import (
    OVMS_DEFAULT,
    PIPELINE_DEFAULT,
    SCHEDULER_DEFAULT,
    LlmBudget,
    LlmFormat,
    LlmJob,
    LlmLoad,
    LlmModel,
    LlmSetting,
)
from ov_tuner.workloads.llm.trial import open_pipeline, run_trial
from ov_tuner.workloads.llm.users import MOST_USERS, WALK_PRECISION, walk_rule

QUICK = ["--seconds", "0.4", "--lead-in", "0.1", "--users", "4", "--prompt-tokens", "16-32", "--output-tokens", "8"]


@pytest.fixture(scope="module")
def genai_folder(tiny_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A GenAI model folder (the model IR, tokenizer and detokenizer IRs) as GenAI itself writes one from the GGUF."""
    import openvino_genai

    made = tmp_path_factory.mktemp("folder")
    gguf_copy = made / "tiny.gguf"
    gguf_copy.write_bytes(tiny_gguf.read_bytes())
    openvino_genai.LLMPipeline(str(gguf_copy), "CPU", enable_save_ov_model=True)
    gguf_copy.unlink()
    return made


def _cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_a_gguf_is_read_for_what_it_is(tiny_gguf: Path) -> None:
    model = read_llm(tiny_gguf)
    assert (model.format, model.architecture, model.layers, model.width) == (LlmFormat.GGUF, "llama", 2, 256)
    assert model.vocab == 256 + 144 + 2 and len(model.sha256) == 64


def test_a_model_of_another_shape_takes_a_real_models_tokenizer_and_chat_template(tiny_gguf: Path,
                                                                                  tmp_path: Path) -> None:
    """scripts/llm_sizes.py's models: SmolLM2's tokenizer on a llama of another size (here the tiny model's)."""
    import gguf

    shaped = write_llama_gguf(tmp_path / "shaped.gguf", LlamaShape(layers=3, width=128, heads=4, kv_heads=2,
                                                                   feed_forward=256), quantized=True,
                              tokenizer=tiny_gguf)
    source, copy = gguf.GGUFReader(str(tiny_gguf)), gguf.GGUFReader(str(shaped))
    for key in ("tokenizer.ggml.tokens", "tokenizer.ggml.merges", "tokenizer.chat_template"):
        assert copy.fields[key].contents() == source.fields[key].contents()
    model = read_llm(shaped)
    assert (model.layers, model.width, model.vocab) == (3, 128, read_llm(tiny_gguf).vocab)


def test_a_gguf_of_f32_matrices_is_refused_in_one_line_naming_what_genai_reads(tmp_path: Path) -> None:
    f32 = write_llama_gguf(tmp_path / "f32.gguf", matrix_type=np.float32)
    code, _, err = _cli("llm", str(f32), "--out", str(tmp_path / "r.db"))
    assert code == 2 and err.count("\n") == 1 and "F32 weight matrices" in err and "F16, Q8_0" in err
    assert not (tmp_path / "r.db").exists()


def test_an_image_model_or_a_folder_without_its_tokenizer_is_refused_in_one_line(tiny_model: Path,
                                                                               tmp_path: Path) -> None:
    code, _, err = _cli("llm", str(tiny_model), "--out", str(tmp_path / "r.db"))
    assert code == 2 and err.count("\n") == 1 and "is not an LLM" in err and "its inputs:" in err
    assert "ov-tuner sweep" in err
    folder = tmp_path / "exported"
    folder.mkdir()
    for part in (tiny_model, tiny_model.with_suffix(".bin")):
        (folder / f"openvino_model{part.suffix}").write_bytes(part.read_bytes())
    code, _, err = _cli("llm", str(folder), "--out", str(tmp_path / "r.db"))
    assert code == 2 and err.count("\n") == 1
    assert "openvino_tokenizer.xml or openvino_detokenizer.xml" in err and "optimum-cli" in err


def test_a_prompts_file_with_a_bad_line_names_the_line(tiny_gguf: Path, tmp_path: Path) -> None:
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text('{"prompt": "hello", "output_tokens": 8}\n{"prompt": "there", "output_tokens": 0}\n')
    code, _, err = _cli("llm", str(tiny_gguf), "--prompts", str(prompts), "--out", str(tmp_path / "r.db"))
    assert code == 2 and err.count("\n") == 1 and "line 2" in err and "output_tokens" in err
    assert not (tmp_path / "r.db").exists()


def test_an_absent_device_is_one_line(tiny_gguf: Path, tmp_path: Path) -> None:
    code, _, err = _cli("llm", str(tiny_gguf), "--device", "NPU", "--out", str(tmp_path / "r.db"))
    assert code == 2 and err.count("\n") == 1 and "NPU is not present" in err


def test_an_out_no_results_file_can_be_is_one_line_and_never_the_prompts_given(tiny_gguf: Path,
                                                                                 tmp_path: Path) -> None:
    prompts = tmp_path / "p.jsonl"
    prompts.write_text(json.dumps({"prompt": "hello there", "output_tokens": 4}) + "\n")
    code, _, err = _cli("llm", str(tiny_gguf), "--out", str(tmp_path / "missing" / "r.db"))
    assert code != 0 and err.count("\n") == 1 and "missing does not exist" in err
    before = prompts.read_bytes()
    code, _, err = _cli("llm", str(tiny_gguf), "--out", str(prompts), "--prompts", str(prompts))
    assert code != 0 and err.count("\n") == 1 and "which you gave as input" in err and prompts.read_bytes() == before


def test_without_genai_the_command_says_how_to_add_it(tiny_gguf: Path, tmp_path: Path) -> None:
    script = ("import sys; sys.modules['openvino_genai'] = None\n"
              "from ov_tuner.cli import app; app()")
    done = subprocess.run([sys.executable, "-c", script, "llm", str(tiny_gguf), "--out", str(tmp_path / "r.db")],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "pip install 'ov-tuner[llm]'" in done.stderr and done.stderr.count("\n") == 1


def test_no_two_requests_of_a_trial_share_a_prompt_unless_asked() -> None:
    vocabulary = np.arange(400)
    drawn = [r.prompt.tobytes() for _, r in zip(range(200), generated_requests(vocabulary, (8, 8), (4, 4), 0, 1),
                                                strict=False)]
    assert len(set(drawn)) == 200
    shared = [r.prompt for _, r in zip(range(5), generated_requests(vocabulary, (12, 12), (4, 4), 8, 1),
                                       strict=False)]
    assert all(np.array_equal(p[:8], shared[0][:8]) for p in shared)

    lines = [p for p in read_prompts_text("a", "b")]
    requests = file_requests(lines, lambda line: np.array([ord(line.prompt)]), vocabulary, 0)
    again = [r.prompt for _, r in zip(range(6), requests, strict=False)]
    assert len({p.tobytes() for p in again}) == 6  # the second time through, each starts with a token of its own
    assert np.array_equal(again[2][1:], again[0]) and np.array_equal(again[4][1:], again[0])
    # lines that begin alike (a chat template's head) keep that head first, the drawn token right after it
    headed = file_requests(read_prompts_text("xya", "xyb", "xyc"), lambda line: np.array([ord(c) for c in line.prompt]),
                           vocabulary, 0)
    second = [r.prompt for _, r in zip(range(6), headed, strict=False)][3:]
    assert all(list(p[:2]) == [ord("x"), ord("y")] for p in second)
    assert [list(p[3:]) for p in second] == [[ord(c)] for c in "abc"]


def read_prompts_text(*prompts: str) -> list:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "p.jsonl"
        path.write_text("".join(json.dumps({"prompt": p, "output_tokens": 4}) + "\n" for p in prompts))
        return read_prompts(path)


def test_a_trial_times_every_request_and_holds_the_output_length(tiny_gguf: Path) -> None:
    model = read_llm(tiny_gguf)
    load = LlmLoad(users=3, seconds=0.4, lead_in_s=0.1, prompt_tokens=(16, 24), output_tokens=(8, 8))
    trial = trial_in_process(model, "CPU", SCHEDULER_DEFAULT, load)
    assert trial.ok and trial.ttft_ms.size >= 3
    assert trial.output_tokens == 8 * trial.ttft_ms.size  # every counted request ended with the 8 tokens asked
    assert trial.tpot_ms.size == trial.ttft_ms.size and (trial.tpot_ms > 0).all() and (trial.ttft_ms > 0).all()
    assert trial.first_request_ms > 0 and trial.kv_cache_bytes > 0 and trial.wall_s > 0
    assert 16 * trial.ttft_ms.size <= trial.prompt_tokens <= 24 * trial.ttft_ms.size
    # what the window's steps read: each step holds one request at least, at most every user's, each 16 to 32 tokens
    assert trial.window_steps > 0
    assert 16 * trial.window_steps <= trial.window_context_tokens <= 3 * (24 + 8) * trial.window_steps
    assert 0 < trial.window_prompt_tokens <= 24 * trial.window_steps


def test_a_setting_the_device_refuses_is_a_failed_trial_with_its_reason(tiny_gguf: Path) -> None:
    model = read_llm(tiny_gguf)
    load = LlmLoad(users=2, seconds=0.2, lead_in_s=0.0, prompt_tokens=(8, 8), output_tokens=(4, 4))
    for refused, named in ((LlmSetting(threads=-1), "INFERENCE_NUM_THREADS"),
                           (LlmSetting(kv_cache_precision="q9"), "KV_CACHE_PRECISION")):
        trial = run_trial(model, "CPU", refused, load)
        assert not trial.ok and trial.error is not None and named in trial.error and "\n" not in trial.error


def test_a_trial_whose_process_dies_is_a_failed_trial_saying_how() -> None:
    died = subprocess.run([sys.executable, "-c", "import os, sys; print('free(): corrupted', file=sys.stderr); "
                           "os.abort()"], capture_output=True, text=True, check=False)
    assert ended(died) == "the trial's process ended (SIGABRT: free(): corrupted)"


def test_the_job_stores_every_trial_resumes_and_its_forms_run(tiny_gguf: Path, tmp_path: Path) -> None:
    db = tmp_path / "llm.db"
    args = ["llm", str(tiny_gguf), "--out", str(db), *QUICK, "--batched-tokens", "256,1024", "--kv-precision",
            "default,u8", "--search", "grid", "--passes", "2", "--ttft-ms", "60000", "--most-users", "8"]
    code, out, err = _cli(*args)
    assert code == 0, err
    with LlmStore(db, create=False) as store:
        trials = store.llm_trials()
    searched = [t for t in trials if t.searched]
    # the three baselines, then every setting of the grid, each once (256 tokens with the default KV cache is GenAI's
    # scheduler default, measured already; generated prompts share no prefix, so prefix caching is not searched)
    assert len(searched) == 3 + 2 * 2 - 1 and len(set(t.setting for t in searched)) == len(searched)
    assert all(t.ok for t in searched)
    passes = [t for t in trials if t.pass_number is not None]
    assert {t.pass_number for t in passes} == {0, 1}
    assert {SCHEDULER_DEFAULT, PIPELINE_DEFAULT} <= {t.setting for t in passes}
    assert "deploy " in out and "vs default " in out and "1024 batched tokens, KV cache u8: " in out
    walks = [t for t in trials if t.users is not None]  # the answer's and each baseline's: 4 users met the budget in
    walked = {t.setting for t in walks}  # the rounds, so 8, the most asked, measured again before it is claimed
    assert set(BASELINES) <= walked and len(walked) <= 5
    assert all(sorted(t.users or 0 for t in walks if t.setting == s) == [8] * REPEATS for s in walked)
    assert len({t.setting for t in walks[:len(walked)]}) == len(walked)  # walked alternately: one step of each
    assert "8 users or more within the budget" in out
    with LlmStore(db, create=False) as store:
        harness = store.llm_harness()
    # the harness's own trial, at the users the answer's walk served with the model made trivial, kept apart from
    # the model's trials
    assert len(harness) == 1 and harness[0].users == 8 and harness[0].ok and harness[0].ttft_ms.size > 0
    assert "with the model made trivial, at 8 users ov-tuner's load harness" in out
    with LlmStore(db, create=False) as store:
        outputs, stored = store.llm_outputs(), store.stored_llm()
    assert stored is not None
    deployed = llm_answer(stored).answer
    assert deployed is not None
    # what the model says is read at the answer, beside GenAI's scheduler default, and at no setting the rounds did
    # not take (one of the grid's settings never went to them); where the answer computes in another precision (a
    # u8 KV cache), its first token's logits and next tokens against f32's, and the default's beside them; none at a
    # setting that computes as the default does. The IR they ran was converted into ov-tuner's cache, not beside the
    # user's GGUF
    read = {o.setting for o in outputs}
    assert {SCHEDULER_DEFAULT, deployed.setting} <= read <= {t.setting for t in trials if t.in_rounds}
    checked = [o for o in outputs if changes_precision(o.setting)]
    checked += [o for o in outputs if o.setting == SCHEDULER_DEFAULT and checked]
    assert (deployed.setting in {o.setting for o in checked}) == changes_precision(deployed.setting)
    assert all(len(o.first_step_cosines) == 16 and len(o.next_token_shares) == 16 for o in checked)
    assert all(not o.first_step_cosines and not o.next_token_shares for o in outputs if o not in checked)
    assert not (tiny_gguf.parent / "openvino_model.xml").exists()

    code, again, _ = _cli(*args)  # the same command again: nothing of the search is measured twice
    with LlmStore(db, create=False) as store:
        assert len([t for t in store.llm_trials() if t.searched]) == len(searched)
        assert len([t for t in store.llm_trials() if t.users is not None]) == len(walks)
        assert len(store.llm_harness()) == 1
    assert code == 0 and not [line for line in again.splitlines() if line.startswith(("search ", "pass ", "walk "))]

    code, text, _ = _cli("recommend", str(db), "--format", "json")
    payload = json.loads(text)
    assert code == 0 and payload["kind"] == "llm" and payload["schema_version"] >= 1 and payload["box"] is not None
    cosines = [a["first_step_cosine"] for a in payload["agreements"] if a["first_step_cosine"] is not None]
    assert len(cosines) == len(checked) and all(0.99 < c <= 1 + 1e-6 for c in cosines)
    assert payload["answer"]["meets_budget"] and payload["says"]["deploy"].startswith("CPU")
    assert set(payload["answer"]["ttft_ms"]) == {"p50", "p90", "p99"}
    assert payload["harness"]["load"] == 8 and payload["harness"]["ttft_share"] > 0
    # the answer against this host's roofline: its steps read the served IR's weights, whole, each step
    hardware = payload["hardware"]
    with LlmStore(db, create=False) as store:
        roofline = store.llm_roofline()
    assert roofline is not None and hardware["weight_bytes"] == dict(roofline.weight_bytes)[None] > 0
    assert hardware["bound"] in {b.value for b in Bound} and "each step reads " in payload["says"]["hardware"]

    form = tmp_path / "serve.py"
    code, _, _ = _cli("recommend", str(db), "--format", "python", "-o", str(form))
    assert code == 0
    # a served request ends at the end of its answer: the form holds no output length as the trials did
    assert "ignore_eos" not in form.read_text() and "min_new_tokens" not in form.read_text()
    ran = subprocess.run([sys.executable, str(form), "hello"], capture_output=True, text=True, check=True)
    served = json.loads(ran.stdout.strip().splitlines()[-1])
    answer = payload["answer"]["setting"]
    setting = LlmSetting(max_num_batched_tokens=answer["max_num_batched_tokens"], max_num_seqs=answer["max_num_seqs"],
                         dynamic_split_fuse=answer["dynamic_split_fuse"],
                         enable_prefix_caching=answer["enable_prefix_caching"],
                         kv_cache_precision=answer["properties"].get("KV_CACHE_PRECISION"),
                         inference_precision=answer["properties"].get("INFERENCE_PRECISION_HINT"))
    assert served["scheduler"] == {"max_num_batched_tokens": answer["max_num_batched_tokens"] or 2**64 - 1,
                                   "max_num_seqs": setting.max_num_seqs,
                                   "dynamic_split_fuse": setting.dynamic_split_fuse,
                                   "enable_prefix_caching": setting.enable_prefix_caching,
                                   "cache_size": answer["cache_gb"] or 0}
    assert served["properties"] == answer["properties"]
    assert served["kv_cache_bytes"] == _kv_bytes_for_one_request(tiny_gguf, setting, "hello")
    # run without a request, it asks a question of its own
    assert repr(DEFAULT_PROMPT) in form.read_text()
    asked = subprocess.run([sys.executable, str(form)], capture_output=True, text=True, check=True)
    assert isinstance(json.loads(asked.stdout.strip().splitlines()[-1])["text"], str)

    code, _, err = _cli("recommend", str(db), "--format", "benchmark_app")
    assert code == 2 and "an LLM's answer comes as --format python, ovms, kubernetes or json" in err
    code, resources, _ = _cli("recommend", str(db), "--format", "kubernetes")
    assert code == 0 and "limits:" in resources and "cpu:" in resources
    assert "--cpus" not in resources  # `llm` has no such flag: the form names the way it measures under a limit


def _kv_bytes_for_one_request(model: Path, setting: LlmSetting, prompt: str) -> int:
    """What ov-tuner's own pipeline at `setting` allocates for the form's one request, made a prompt by the model's
    chat template as the form makes it: the form ran that setting where the two agree (the KV cache's size changes
    with its precision)."""
    import openvino_genai

    pipe, _ = open_pipeline(str(model), setting, "CPU")
    tokenizer = pipe.get_tokenizer()  # type: ignore[attr-defined]
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": prompt}], add_generation_prompt=True)
    config = openvino_genai.GenerationConfig(max_new_tokens=8)  # the longest output the job measured, as the form
    pipe.generate([prompt], [config])  # type: ignore[attr-defined]
    return int(pipe.get_metrics().kv_cache_size_in_bytes)  # type: ignore[attr-defined]


def test_a_budget_no_setting_meets_is_one_line_with_the_best_seen_and_the_trials_kept(tiny_gguf: Path,
                                                                                       tmp_path: Path) -> None:
    db = tmp_path / "llm.db"
    code, _, err = _cli("llm", str(tiny_gguf), "--out", str(db), *QUICK, "--batched-tokens", "256", "--kv-precision",
                        "default", "--search", "grid", "--ttft-ms", "0.001", "--no-walk")
    assert code == 2 and err.count("\n") == 1 and "no setting met the budget" in err and "the closest gave" in err
    with LlmStore(db, create=False) as store:
        assert len(store.llm_trials()) == len(BASELINES)
    for form in ("python", "ovms", "kubernetes"):  # no setting to write: one line, not a traceback
        code, _, err = _cli("recommend", str(db), "--format", form)
        assert code == 2 and err.count("\n") == 1 and "no setting to write as a form" in err, (form, err)
    code, out, _ = _cli("recommend", str(db), "--format", "json")
    assert code == 0 and json.loads(out)["answer"] is None
    # with the walks (the default), each baseline walks down from 4 users to 1 before the line is said
    code, _, err = _cli("llm", str(tiny_gguf), "--out", str(db), *QUICK, "--batched-tokens", "256", "--kv-precision",
                        "default", "--search", "grid", "--ttft-ms", "0.001")
    assert code == 2 and err.count("\n") == 1 and "no setting met the budget" in err and "at any load tried" in err
    with LlmStore(db, create=False) as store:
        walked = [t for t in store.llm_trials() if t.users is not None]
    assert {t.setting for t in walked} == set(BASELINES) and all(t.users == 1 for t in walked[-len(BASELINES):])


def _trial(setting: LlmSetting, number: int | None, tokens_per_s: float, kv: int = 1000) -> LlmTrial:
    requests = np.full(10, 5.0)
    return LlmTrial(setting, pass_number=number, ttft_ms=requests, tpot_ms=requests / 5,
                    output_tokens=int(tokens_per_s), wall_s=1.0, kv_cache_bytes=kv)


JOB = LlmJob(LlmModel("m.gguf", LlmFormat.GGUF, "0" * 64, "llama", 2, 8, 10), "CPU", LlmLoad(), LlmBudget(), "x")


def _stored(trials: list[LlmTrial], outputs: tuple[LlmOutputs, ...] = ()) -> StoredLlm:
    return StoredLlm("r.db", None, JOB, tuple(trials), outputs)


def test_a_setting_not_told_apart_from_genai_left_alone_leaves_it_alone() -> None:
    fast = LlmSetting(max_num_batched_tokens=4096)
    tied = [_trial(s, r, f) for r in range(4) for s, f in ((fast, 1000 + 60 * (r % 2)), (SCHEDULER_DEFAULT, 1030),
                                                           (PIPELINE_DEFAULT, 500))]
    answer = llm_answer(_stored(tied))
    assert answer.answer is not None and answer.fastest is not None
    assert answer.fastest.setting == fast and answer.answer.setting == SCHEDULER_DEFAULT
    assert [(g.ratio.clear, g.settle) for g in answer.gains] == [(True, None)]  # told apart: nothing to settle
    noisy = [_trial(s, r, f) for r in range(4) for s, f in ((fast, 1000 + 60 * (r % 2)), (SCHEDULER_DEFAULT, 1030),
                                                            (PIPELINE_DEFAULT, 1000 + 400 * (r % 2)))]
    open_gain = next(g for g in llm_answer(_stored(noisy)).gains if g.baseline == PIPELINE_DEFAULT)
    assert not open_gain.ratio.clear and open_gain.settle is not None
    # each pass visits both settings, 1 s a trial: the seconds are the passes' at 2 s, for a difference of 5% at least
    assert open_gain.settle.seconds == 2.0 * open_gain.settle.more and open_gain.settle.difference >= 0.05 - 1e-9
    assert f"({open_gain.settle.more} more passes) would settle" in dict(answer_lines(llm_answer(_stored(noisy))))[
        "vs default"]
    apart = [_trial(s, r, f) for r in range(4) for s, f in ((fast, 2000 + r), (SCHEDULER_DEFAULT, 1000 + r),
                                                            (PIPELINE_DEFAULT, 500 + r))]
    answer = llm_answer(_stored(apart))
    assert answer.answer is not None and answer.answer.setting == fast
    gains = {g.baseline: g.ratio for g in answer.gains}
    assert gains[SCHEDULER_DEFAULT].clear and gains[SCHEDULER_DEFAULT].value == pytest.approx(2.0, rel=0.01)
    assert gains[PIPELINE_DEFAULT].clear and gains[PIPELINE_DEFAULT].value == pytest.approx(4.0, rel=0.01)



def test_agreement_counts_tokens_said_alike_up_to_the_first_that_differs() -> None:
    reference = [(1, 2, 3, 4), (5, 6, 7, 8)]
    assert agreement(reference, reference) == 1.0
    assert agreement([(1, 2, 9, 4), (0, 6, 7, 8)], reference) == pytest.approx((2 / 4 + 0 / 4) / 2)


def test_a_setting_that_says_too_little_alike_is_held_back_with_the_way_to_let_it_in() -> None:
    fast = LlmSetting(kv_cache_precision="u8")
    trials = [_trial(s, r, f) for r in (None, 0, 1, 2) for s, f in ((fast, 2000), (SCHEDULER_DEFAULT, 1000),
                                                                     (PIPELINE_DEFAULT, 990))]
    said = ((1, 2, 3, 4),) * 4
    outputs = (LlmOutputs(SCHEDULER_DEFAULT, said), LlmOutputs(fast, ((1, 2, 0, 0),) * 4))
    answer = llm_answer(_stored(trials, outputs))
    assert answer.answer is not None and answer.answer.setting == SCHEDULER_DEFAULT
    assert [f.setting for f in answer.held_back] == [fast] and answer.agreements[fast] == 0.5
    advice = re.search(r"--min-agreement ([0-9.]+)", dict(answer_lines(answer))["held back"])
    assert advice is not None and advice.group(1) == "0.49"
    let_in = llm_answer(_stored(trials, outputs), min_agreement=float(advice.group(1)))  # the value the words give
    assert let_in.answer is not None and let_in.answer.setting == fast and not let_in.held_back


def test_rounding_alone_never_holds_a_setting_back_and_a_precision_is_judged_on_next_tokens() -> None:
    chunked, u8 = LlmSetting(max_num_batched_tokens=4096), LlmSetting(kv_cache_precision="u8")
    figures = ((chunked, 2000), (u8, 1500), (SCHEDULER_DEFAULT, 1000), (PIPELINE_DEFAULT, 990))
    trials = [_trial(s, r, f) for r in (None, 0, 1, 2) for s, f in figures]
    said, parted = ((1, 2, 3, 4),) * 4, ((1, 2, 0, 0),) * 4  # greedy texts parting half way
    outputs = (LlmOutputs(SCHEDULER_DEFAULT, said, next_token_shares=(1.0,) * 4),
               LlmOutputs(chunked, parted, next_token_shares=(1.0,) * 4),
               LlmOutputs(u8, parted, next_token_shares=(1.0, 1.0, 0.75, 1.0)),
               LlmOutputs(PIPELINE_DEFAULT, parted))
    answer = llm_answer(_stored(trials, outputs))
    # a scheduler setting (prompts chunked otherwise) is never held back for rounding, nor is GenAI's own default
    assert answer.answer is not None and answer.answer.setting == chunked and not answer.held_back
    assert answer.agreements[chunked] == 0.5 and chunked not in answer.judged and PIPELINE_DEFAULT not in answer.judged
    # the u8 KV cache is judged on next tokens along the most exact continuation (93.75%), not its greedy text (50%)
    assert answer.judged[u8] == pytest.approx(0.9375)
    assert "where only rounding parts them" in dict(answer_lines(answer))["outputs"]
    strict = llm_answer(_stored(trials, outputs), min_agreement=0.95)
    assert [f.setting for f in strict.held_back] == [u8]


def test_a_kv_precision_the_device_refuses_is_one_line_before_anything_runs(tiny_gguf: Path, tmp_path: Path) -> None:
    code, _, err = _cli("llm", str(tiny_gguf), "--kv-precision", "u8,q9", "--out", str(tmp_path / "r.db"))
    assert code == 2 and err.count("\n") == 1 and "--kv-precision q9: CPU refuses KV_CACHE_PRECISION=q9" in err
    assert not (tmp_path / "r.db").exists()


def test_a_kv_precision_is_checked_against_f32_with_the_default_beside(tiny_gguf: Path) -> None:
    """What the confirmation reads at an answer that computes in another precision: its first token's logits and its
    next tokens along f32's own continuation, on each of the 16 held-apart prompts, and the default's beside them."""
    model = served_model(read_llm(tiny_gguf))
    load = LlmLoad(users=4, prompt_tokens=(16, 32), output_tokens=(8, 8))
    u8 = dataclasses.replace(SCHEDULER_DEFAULT, kv_cache_precision="u8")
    outputs, beside = outputs_in_process(model, "CPU", u8, load, model, with_default=True)
    assert outputs.error is None and len(outputs.tokens) == 16 and beside is not None
    for cosines, shares in ((outputs.first_step_cosines, outputs.next_token_shares),
                            (beside.first_step_cosines, beside.next_token_shares)):
        assert len(cosines) == 16 and 0.99 < min(cosines) <= max(cosines) < 1 + 1e-6
        assert len(shares) == 16 and all(0 <= s <= 1 for s in shares)


def test_weights_the_device_cannot_be_given_are_one_line(tiny_gguf: Path, tmp_path: Path) -> None:
    code, _, err = _cli("llm", str(tiny_gguf), "--weights", "int3", "--out", str(tmp_path / "r.db"))
    assert code == 2 and err.count("\n") == 1 and "--weights int3: give default, int8 or int4" in err


def test_a_genai_folder_is_tuned_with_its_weights_compressed_once(genai_folder: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OV_TUNER_CACHE", str(tmp_path / "cache"))
    model = read_llm(genai_folder)
    assert model.format is LlmFormat.FOLDER and len(model.sha256) == 64
    db = tmp_path / "llm.db"
    args = ["llm", str(genai_folder), "--out", str(db), *QUICK, "--batched-tokens", "256", "--kv-precision",
            "default", "--weights", "default,int4", "--passes", "0"]
    code, out, err = _cli(*args)
    assert code == 0, err
    assert out.count("compressing the weights to int4") == 1 and "weights int4: " in out
    made = list((tmp_path / "cache" / "llm").iterdir())
    assert [m.name.endswith("-int4") for m in made] == [True]
    assert (made[0] / "openvino_tokenizer.xml").is_file()
    assert (made[0] / "openvino_model.bin").stat().st_size < (genai_folder / "openvino_model.bin").stat().st_size / 2
    # int4 weights move the first token's logits further from f32's than the default's precision does
    load = LlmLoad(users=4, prompt_tokens=(16, 32), output_tokens=(8, 8))
    given, _ = outputs_in_process(model, "CPU", SCHEDULER_DEFAULT, load, model)
    int4, _ = outputs_in_process(dataclasses.replace(model, path=str(made[0])), "CPU",
                                 dataclasses.replace(SCHEDULER_DEFAULT, weights="int4"), load, model)
    assert given.error is None and int4.error is None and len(int4.tokens) == 16
    assert min(int4.first_step_cosines) < min(given.first_step_cosines)
    code, again, _ = _cli(*args)  # made once: the rerun finds the folder in the cache
    assert code == 0 and "compressing" not in again


def test_ctrl_c_finishes_the_trial_under_way_keeps_every_trial_and_the_same_command_resumes(tiny_gguf: Path,
                                                                                             tmp_path: Path) -> None:
    db = tmp_path / "llm.db"
    args = ["llm", str(tiny_gguf), "--out", str(db), *QUICK, "--batched-tokens", "256,1024", "--kv-precision",
            "default", "--search", "grid", "--passes", "2", "--no-walk"]
    proc = start_until(args, db, 2, table="llm_trials")
    proc.send_signal(signal.SIGINT)  # the child measuring the third trial ignores it: that trial ends whole
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    with LlmStore(db, create=False) as store:
        kept = store.llm_trials()
    assert len(kept) in (2, 3) and all(t.ok for t in kept)
    again = ov_tuner(*args, timeout=300)
    assert again.returncode == 0, again.stderr
    with LlmStore(db, create=False) as store:
        after = store.llm_trials()
    assert [t.setting for t in after[:len(kept)]] == [t.setting for t in kept]  # kept as they were, then more
    assert len({t.setting for t in after if t.searched}) == len([t for t in after if t.searched]) == 4


def test_an_open_loop_counts_every_request_that_arrived_in_the_window(tiny_gguf: Path) -> None:
    model = read_llm(tiny_gguf)
    load = LlmLoad(users=0, rate=30.0, arrival=Arrival.CONSTANT, seconds=0.5, lead_in_s=0.1, prompt_tokens=(8, 8),
                   output_tokens=(4, 4))
    trial = trial_in_process(model, "CPU", SCHEDULER_DEFAULT, load)
    # arrivals every 1/30 s from the start: those in [0.1 s, 0.6 s) are counted, however fast the host serves them
    assert trial.ok and 14 <= trial.ttft_ms.size <= 16 and trial.output_tokens == 4 * trial.ttft_ms.size


def test_scheduler_switches_and_plugin_values_join_the_grid(tiny_gguf: Path, tmp_path: Path) -> None:
    db = tmp_path / "llm.db"
    code, out, err = _cli("llm", str(tiny_gguf), "--out", str(db), *QUICK, "--batched-tokens", "256", "--kv-precision",
                          "default", "--split-fuse", "on,off", "--dq-group-size", "default,0", "--cache-gb", "1",
                          "--search", "grid", "--passes", "0")
    assert code == 0, err
    with LlmStore(db, create=False) as store:
        searched = {t.setting for t in store.llm_trials() if t.searched}
    grid = {(s.dynamic_split_fuse, s.dq_group_size, s.cache_gb) for s in searched if s not in BASELINES}
    assert grid == {(True, None, 1), (True, 0, 1), (False, None, 1), (False, 0, 1)}
    assert "split-fuse off, dynamic quantization group 0, KV cache of 1 GB made at once: " in out
    code, _, err = _cli("llm", str(tiny_gguf), "--out", str(db), "--split-fuse", "maybe")
    assert code == 2 and "--split-fuse maybe" in err


def test_a_walk_that_serves_more_users_told_apart_decides_the_answer() -> None:
    faster = LlmSetting(max_num_batched_tokens=4096)
    budget = LlmBudget(ttft_ms=100.0)
    job = dataclasses.replace(JOB, budget=budget)
    rounds = [_trial(s, r, f) for r in range(3) for s, f in ((faster, 1000 + 50 * (r % 2)), (SCHEDULER_DEFAULT, 1020),
                                                             (PIPELINE_DEFAULT, 1010))]
    fast, slow = np.full(10, 5.0), np.full(10, 500.0)

    def walk(setting: LlmSetting, served: int) -> list[LlmTrial]:
        """Once far from the edge, four times at it and three times one above, as the walk measures them."""
        return [LlmTrial(setting, users=n, ttft_ms=fast if n <= served else slow, tpot_ms=fast, output_tokens=10,
                         wall_s=1.0) for n in (8, 16, *[served] * 4, *[served + 1] * 3)]

    stored = StoredLlm("r.db", None, job, (*rounds, *walk(SCHEDULER_DEFAULT, 20), *walk(PIPELINE_DEFAULT, 30)), ())
    answer = llm_answer(stored)
    assert answer.answer is not None and answer.answer.setting == PIPELINE_DEFAULT and answer.rule is Rule.MOST_SERVED
    assert [(w.setting, w.served) for w in answer.walks] == [(PIPELINE_DEFAULT, 30), (SCHEDULER_DEFAULT, 20)]
    (gain,) = answer.walk_gains
    assert gain.baseline == SCHEDULER_DEFAULT and gain.difference.value == 10 and gain.difference.differs
    words = dict(answer_lines(answer))
    assert "30 users (95%: 27..35) within the budget" in words["users"]  # 30..31 widened by a rerun's spread
    assert "+10 users over GenAI's scheduler default (95%: +" in words["users"]
    assert "told apart (the difference's 95% interval above 0)" in words["why"]
    close = StoredLlm("r.db", None, job, (*rounds, *walk(SCHEDULER_DEFAULT, 20), *walk(PIPELINE_DEFAULT, 21)), ())
    assert llm_answer(close).answer.setting == SCHEDULER_DEFAULT  # type: ignore[union-attr]  # 21 vs 20: not apart


def test_a_fast_setting_at_its_edge_loses_to_a_slower_one_with_room_and_at_its_edge_is_said_where_all_are() -> None:
    """The objective's first rung: the budget met at the load given in most windows there, not only over the rounds'
    passes pooled. A setting twice as fast whose walk serves 7 of the 8 users given is not deployed where GenAI left
    alone serves 8; where every setting is at its edge, the answer says so."""
    budget = LlmBudget(ttft_ms=100.0)
    job = dataclasses.replace(JOB, budget=budget, load=LlmLoad(users=8))
    met, missed = np.full(10, 5.0), np.full(10, 500.0)
    two_slow = np.array([500.0, 500.0, *[5.0] * 8])  # its p90 misses; pooled with two windows met, it meets
    fast = LlmSetting(max_num_batched_tokens=4096)

    def trial(setting: LlmSetting, users: int | None, ttft: np.ndarray, number: int | None = None) -> LlmTrial:
        return LlmTrial(setting, pass_number=number, users=users, ttft_ms=ttft, tpot_ms=met,
                        output_tokens=2000 if setting == fast else 1000, wall_s=1.0)

    # in the rounds at 8 users one window in three missed alone, but the p90 pooled over the three met the budget
    rounds = [trial(s, None, two_slow if n == 0 else met, n) for n in range(3) for s in (fast, *BASELINES)]
    edge = [trial(fast, n, met if n <= 7 else missed) for n in (16, 12, 9, 8, 8, 7, 7, 7)]
    room = [trial(s, n, met if n <= 8 else missed) for s in BASELINES for n in (16, 12, 9, 9, 9, 8, 8)]
    answer = llm_answer(StoredLlm("r.db", None, job, (*rounds, *edge, *room), ()))
    assert answer.fastest is not None and answer.fastest.setting == fast
    assert answer.answer is not None and answer.answer.setting == SCHEDULER_DEFAULT  # tied baselines: the simplest
    assert answer.rule is Rule.ROBUST and answer.rule.rung == 1 and not answer.at_its_edge
    assert dict(answer_lines(answer))["why"].startswith("decided by the objective's rung 1 of 4, robustly within the "
                                                        "budget at the load given: its walk serves 8 users or more")
    # every setting at its edge: the fastest is deployed, and the words say the load given is at its edge
    all_edge = [trial(s, n, met if n <= 7 else missed) for s in BASELINES for n in (16, 12, 9, 8, 8, 7, 7, 7)]
    answer = llm_answer(StoredLlm("r.db", None, job, (*rounds, *edge, *all_edge), ()))
    assert answer.answer is not None and answer.answer.setting == fast and answer.rule is Rule.FASTEST
    assert answer.walks[0].served == 7 and answer.at_its_edge
    users = dict(answer_lines(answer))["users"]
    assert users.startswith("7 users (95%: ") and ("within the budget, fewer than the 8 users given: there it met the "
                                                   "budget over the rounds' passes pooled, in 2 of 5 windows alone;"
                                                   in users)


def test_the_answer_is_never_a_setting_the_server_left_alone_serves_more_users_than() -> None:
    """Whatever the rounds say, a baseline whose walk serves more, told apart, is deployed instead (here the
    baselines missed the budget over the rounds' passes pooled, one window of three missed whole, so only the fast
    setting led there); of baselines not told apart, the simplest (GenAI left alone)."""
    budget = LlmBudget(ttft_ms=100.0)
    job = dataclasses.replace(JOB, budget=budget, load=LlmLoad(users=4))
    met, missed = np.full(10, 5.0), np.full(10, 500.0)
    fast = LlmSetting(enable_prefix_caching=False, max_num_batched_tokens=4096)

    def trial(setting: LlmSetting, users: int | None, ok: bool, number: int | None = None) -> LlmTrial:
        return LlmTrial(setting, pass_number=number, users=users, ttft_ms=met if ok else missed, tpot_ms=met,
                        output_tokens=2000 if setting == fast else 1000, wall_s=1.0)

    def walk(setting: LlmSetting, served: int) -> list[LlmTrial]:
        return [trial(setting, n, n <= served) for n in (8, 16, *[served] * 4, *[served + 1] * 3)]

    rounds = [trial(s, None, s == fast or n > 0, n) for n in range(3) for s in (fast, *BASELINES)]
    walks = [*walk(fast, 8), *walk(SCHEDULER_DEFAULT, 20), *walk(PIPELINE_DEFAULT, 8), *walk(OVMS_DEFAULT, 20)]
    answer = llm_answer(StoredLlm("r.db", None, job, (*rounds, *walks), ()))
    assert answer.fastest is not None and answer.fastest.setting == fast
    assert answer.answer is not None and answer.answer.setting == SCHEDULER_DEFAULT  # 20 and 20: the simpler
    assert answer.rule is Rule.BASELINE and answer.rule.rung == 2
    assert all(not (g.difference.differs and g.difference.value < 0) for g in answer.walk_gains)
    assert llm_answer_json(answer)["rung"] == 2


def test_a_baseline_walk_stops_once_it_cannot_change_the_answer() -> None:
    """A walk whose interval lies wholly below the answer's serves neither more nor the load given where the answer
    does not: it stops, the difference told apart; one that overlaps goes on, as does one not yet begun."""
    def walk(served: int) -> list[tuple[float, bool]]:
        return [(float(n), n <= served) for n in (8, 16, *[served] * 4, *[served + 1] * 3)]

    assert cannot_change(walk(8), walk(20), closed=True)
    assert not cannot_change(walk(19), walk(20), closed=True)
    assert not cannot_change([], walk(20), closed=True) and not cannot_change(walk(8), [], closed=True)


def test_where_nothing_meets_the_budget_at_the_load_given_the_one_that_serves_most_walking_down_is_the_answer(
) -> None:
    budget = LlmBudget(ttft_ms=100.0)
    job = dataclasses.replace(JOB, budget=budget, load=LlmLoad(users=8))
    fast, slow = np.full(10, 5.0), np.full(10, 500.0)

    def trial(setting: LlmSetting, users: int | None, met: bool, number: int | None = None) -> LlmTrial:
        return LlmTrial(setting, pass_number=number, users=users, ttft_ms=fast if met else slow, tpot_ms=fast,
                        output_tokens=1000, wall_s=1.0)

    missed = [trial(s, None, False) for s in BASELINES]  # the search: every one missed at 8 users
    stored = StoredLlm("r.db", None, job, tuple(missed), ())
    before = llm_answer(stored)
    assert before.answer is None and before.closest is not None  # the walks start from the one that missed least
    walks = [trial(s, n, n <= served) for s, served in ((SCHEDULER_DEFAULT, 2), (OVMS_DEFAULT, 5))
             for n in (8, 4, 2, *[served] * 3, *[served + 1] * 3)]
    answer = llm_answer(dataclasses.replace(stored, trials=(*missed, *walks)))
    assert answer.answer is not None and answer.answer.setting == OVMS_DEFAULT and answer.rule is Rule.WALKED_DOWN
    assert [(w.setting, w.served) for w in answer.walks] == [(OVMS_DEFAULT, 5), (SCHEDULER_DEFAULT, 2)]
    why = dict(answer_lines(answer))["why"]
    assert why.startswith("decided by the objective's rung 2 of 4, the most load within the budget: no setting met the "
                          "budget at 8 users; walked down, it serves the most within it, 5 users")
    # a time budget ended the search before GenAI's scheduler default ran in it: its figures are its walk's
    unsearched = [t for t in missed if t.setting != SCHEDULER_DEFAULT]
    walked = [trial(SCHEDULER_DEFAULT, n, n <= 5) for n in (8, 4, *[5] * 3, *[6] * 3)]
    found = llm_answer(dataclasses.replace(stored, trials=(*unsearched, *walked)))
    assert found.answer is not None and found.answer.setting == SCHEDULER_DEFAULT and found.rule is Rule.WALKED_DOWN
    assert found.answer.trials == len(walked)


def test_the_rounds_trials_are_the_walks_windows_at_the_load_given() -> None:
    """A pass ran the job's load, so its trial is a window there: the walk starts above it, and a pass that missed
    the budget counts as a miss (the search's trials, at a setting not yet in the rounds, do not count)."""
    budget = LlmBudget(ttft_ms=100.0)
    met, missed = np.full(10, 5.0), np.full(10, 500.0)
    searched = LlmTrial(SCHEDULER_DEFAULT, ttft_ms=missed, tpot_ms=met, output_tokens=10, wall_s=1.0)
    passes = [LlmTrial(SCHEDULER_DEFAULT, pass_number=r, ttft_ms=missed if r == 2 else met, tpot_ms=met,
                       output_tokens=10, wall_s=1.0) for r in range(3)]
    walked = LlmTrial(SCHEDULER_DEFAULT, users=16, ttft_ms=met, tpot_ms=met, output_tokens=10, wall_s=1.0)
    other = LlmTrial(PIPELINE_DEFAULT, pass_number=0, ttft_ms=met, tpot_ms=met, output_tokens=10, wall_s=1.0)
    load = LlmLoad(users=8)
    windows = walk_windows([searched, *passes, walked, other], SCHEDULER_DEFAULT, load, budget)
    assert windows == [(8.0, True), (8.0, True), (8.0, False), (16.0, True)]
    assert next_load(windows[:3], walk_rule(load.amount, MOST_USERS, closed=True)) == 16


def test_genai_left_alone_is_the_answer_every_time_its_two_defaults_are_not_told_apart() -> None:
    """Whichever default leads the rounds by noise, the answer is the scheduler's: the same one every run."""
    for lead in (SCHEDULER_DEFAULT, PIPELINE_DEFAULT):
        rounds = [_trial(s, r, 1000 + (30 if s == lead else 0) + 40 * ((r + i) % 2))
                  for r in range(4) for i, s in enumerate(BASELINES)]
        answer = llm_answer(StoredLlm("r.db", None, JOB, tuple(rounds), ()))
        assert answer.answer is not None and answer.answer.setting == SCHEDULER_DEFAULT
        assert answer.rule is Rule.TIED_SIMPLER
        assert "GenAI left alone" in dict(answer_lines(answer))["why"]


def test_a_setting_the_words_call_no_different_is_never_ruled_slower() -> None:
    """Three passes with the scheduler default a steady 1.5-2.6% behind KV cache u8 (the demo's third run): its gain
    row says no different, so the rule keeps GenAI left alone, as it does when the lead is the default's."""
    u8 = LlmSetting(kv_cache_precision="u8")
    tokens = {u8: (1450, 1520, 1474), SCHEDULER_DEFAULT: (1428, 1481, 1435), PIPELINE_DEFAULT: (1424, 1496, 1448)}
    rounds = [_trial(s, r, f[r]) for r in range(3) for s, f in tokens.items()]
    answer = llm_answer(_stored(rounds))
    assert answer.fastest is not None and answer.fastest.setting == u8
    assert answer.answer is not None and answer.answer.setting == SCHEDULER_DEFAULT and answer.rule is Rule.TIED_SIMPLER
    words = dict(answer_lines(answer))
    assert "no different" in words["vs default"] and "GenAI left alone" in words["why"]


def test_a_contender_another_beats_is_not_the_answer_though_tied_with_a_noisy_leader() -> None:
    """Two passes (`fleet llm` on 2 cores): a noisy leader is told apart from none, so all are tied with it; GenAI's
    scheduler default, the simplest, is beaten by OVMS's default pass by pass, so the answer is OVMS's default."""
    noisy = LlmSetting(enable_prefix_caching=True, lookup_tokens=5, lookup_ngram=3)
    tokens = {noisy: (1600, 1000, 1700), OVMS_DEFAULT: (1300, 1310, 1305), SCHEDULER_DEFAULT: (1000, 1005, 1002)}
    answer = llm_answer(_stored([_trial(s, r, f[r]) for r in range(3) for s, f in tokens.items()]))
    assert answer.fastest is not None and answer.fastest.setting == noisy
    assert answer.answer is not None and answer.answer.setting == OVMS_DEFAULT and answer.rule is Rule.TIED_SIMPLER
    (gain,) = [g for g in answer.gains if g.baseline == SCHEDULER_DEFAULT]
    assert gain.ratio.clear and gain.ratio.value > 1  # the row the terminal prints: told faster than the default


def test_the_walk_doubles_then_bisects_to_within_its_precision_repeating_only_its_edges() -> None:
    def walk(limit: float, start: float, closed: bool = True, most: float = MOST_USERS) -> tuple[float, list[float]]:
        windows: list[tuple[float, bool]] = []
        rule = walk_rule(start, most, closed)
        while (n := next_load(windows, rule)) is not None:
            windows.append((n, n <= limit))
        return boundary(windows, whole=closed).served, [n for n, _ in windows]

    served, tried = walk(20, 8)
    assert served == 20 and tried[:3] == [8, 16, 32] and tried.count(20) >= 3 and tried.count(21) >= 3
    assert walk(0, 8)[0] == 0 and min(walk(0, 8)[1]) == 1
    served, tried = walk(53, 16)
    assert 53 * (1 - WALK_PRECISION) <= served <= 53 and len(set(tried)) <= 8
    assert walk(1000, 8)[0] == MOST_USERS
    rate, tried = walk(7.3, 2.0, closed=False, most=128.0)  # an open loop's rate: no whole numbers
    assert 7.3 * (1 - WALK_PRECISION) <= rate <= 7.3 and rate not in (7.0, 8.0) and len(set(tried)) <= 8
    assert walk(0.01, 2.0, closed=False)[0] == 0 and min(walk(0.01, 2.0, closed=False)[1]) >= 2.0 / 64


def test_an_open_loop_walks_to_the_most_requests_a_second_served(tiny_gguf: Path, tmp_path: Path) -> None:
    db = tmp_path / "llm.db"
    code, out, err = _cli("llm", str(tiny_gguf), "--out", str(db), "--rate", "10", "--arrival",
                          "constant", "--seconds", "0.4", "--lead-in", "0.1", "--prompt-tokens", "8",
                          "--output-tokens", "4", "--batched-tokens", "256", "--kv-precision", "default",
                          "--passes", "0", "--ttft-ms", "60000", "--most-rate", "20")
    assert code == 0, err
    with LlmStore(db, create=False) as store:
        walks = [t for t in store.llm_trials() if t.walked_at is not None]
    assert walks and all(t.users is None and t.rate in (10.0, 20.0) for t in walks)
    assert "rate        20 requests/s or more within the budget" in out
    code, _, err = _cli("llm", str(tiny_gguf), "--out", str(db), "--rate", "10", "--users", "4")
    assert code == 2 and err.count("\n") == 1 and "not both" in err


def test_a_prompts_file_gives_the_trials_their_prompts_and_output_lengths(tiny_gguf: Path, tmp_path: Path) -> None:
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text("".join(json.dumps({"prompt": f"hello there number {i}", "output_tokens": 3 + i % 2}) + "\n"
                               for i in range(4)))
    load = LlmLoad(users=2, seconds=0.4, lead_in_s=0.1, prompts_file=str(prompts))
    trial = trial_in_process(read_llm(tiny_gguf), "CPU", SCHEDULER_DEFAULT, load)
    assert trial.ok and trial.ttft_ms.size >= 4
    # every request asked for 3 or 4 tokens, and the file's lines come round again, each time with a token of its own
    assert 3 * trial.ttft_ms.size <= trial.output_tokens <= 4 * trial.ttft_ms.size


def test_chat_messages_go_through_the_models_chat_template(tiny_gguf: Path, tmp_path: Path) -> None:
    prompts = tmp_path / "chat.jsonl"
    chats = [[{"role": "system", "content": "be brief"}, {"role": "user", "content": f"hello number {i}"}]
             for i in range(3)]
    prompts.write_text("".join(json.dumps({"messages": chat, "output_tokens": 4}) + "\n" for chat in chats))
    load = LlmLoad(users=2, seconds=0.4, lead_in_s=0.1, prompts_file=str(prompts))
    model = read_llm(tiny_gguf)
    trial = trial_in_process(model, "CPU", SCHEDULER_DEFAULT, load)
    assert trial.ok and trial.output_tokens == 4 * trial.ttft_ms.size
    # the prompt is the template's text: each message's role and content, then the assistant's turn opened
    import openvino_genai

    from ov_tuner.workloads.llm.ir import served_model

    tokenizer = openvino_genai.Tokenizer(served_model(model).path)
    line = read_prompts(prompts)[0]
    said = tokenizer.decode(line_encoder(tokenizer)(line).tolist())
    assert said == "system: be brief\nuser: hello number 0\nassistant: "
    per_request = trial.prompt_tokens / trial.ttft_ms.size
    assert per_request >= len(tokenizer.encode(said, add_special_tokens=False).input_ids.data[0])


@pytest.mark.parametrize(("line", "said"), [
    ({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
      "output_tokens": 4}, "the last of \"messages\" is the user's"),
    ({"messages": [{"role": "robot", "content": "hi"}], "output_tokens": 4}, "a role among system, user, assistant"),
    ({"messages": "hi", "output_tokens": 4}, "each of \"messages\" is"),
])
def test_a_chat_line_without_a_users_last_message_names_the_line(line: dict, said: str, tmp_path: Path) -> None:
    prompts = tmp_path / "chat.jsonl"
    prompts.write_text(json.dumps({"prompt": "fine", "output_tokens": 4}) + "\n" + json.dumps(line) + "\n")
    with pytest.raises(BadInputError, match="line 2") as raised:
        read_prompts(prompts)
    assert said in raised.value.message


@pytest.mark.parametrize(("flags", "said"), [
    # the tiny model's context length, 2048, read from its file
    (["--prompt-tokens", "2000", "--output-tokens", "64"], ["need 2064 positions; ", "holds 2048 (its context"]),
    (["--prompt-tokens", "16-32", "--shared-prefix", "16"], ["--shared-prefix 16 is as long as the shortest prompt"]),
])
def test_a_load_the_model_cannot_take_is_one_line_before_anything_runs(tiny_gguf: Path, tmp_path: Path,
                                                                       flags: list[str], said: list[str]) -> None:
    code, _, err = _cli("llm", str(tiny_gguf), *flags, "--out", str(tmp_path / "r.db"))
    assert code == 2 and err.count("\n") == 1 and all(part in err for part in said), err
    assert not (tmp_path / "r.db").exists()


def test_a_prompts_line_past_the_context_is_one_line_naming_it(tiny_gguf: Path, tmp_path: Path) -> None:
    prompts = tmp_path / "long.jsonl"
    prompts.write_text(json.dumps({"prompt": "hello", "output_tokens": 8}) + "\n" +
                       json.dumps({"prompt": "ab " * 1500, "output_tokens": 64}) + "\n")
    code, _, err = _cli("llm", str(tiny_gguf), "--prompts", str(prompts), "--out", str(tmp_path / "r.db"))
    assert code == 2 and err.count("\n") == 1 and "line 2 needs" in err and "holds 2048" in err, err
    assert not (tmp_path / "r.db").exists()


def test_a_v9_llm_file_is_read_with_its_outputs_and_no_logits_cosine(llm_db: Path, tmp_path: Path) -> None:
    import shutil
    import sqlite3

    old = tmp_path / "v9.db"
    shutil.copy(llm_db, old)
    with sqlite3.connect(old) as db:  # as ov-tuner wrote it before the logits' cosine: no such column
        db.execute("ALTER TABLE llm_outputs DROP COLUMN first_step_cosines")
        rewind(db, 9)
    with LlmStore(old, create=False) as store:
        outputs, stored = store.llm_outputs(), store.stored_llm()
    assert outputs and all(o.first_step_cosines == () and len(o.tokens) == 16 for o in outputs)
    assert stored is not None
    deployed = llm_answer(stored).answer
    assert deployed is not None
    code, shown, _ = _cli("show", str(old))
    # the answer's setting, where it computes in another precision, says its logits were not compared; one that
    # computes as the default does says nothing of them (its logits are the default's)
    said = "logits choosing the first token not compared" in shown
    assert code == 0 and said == changes_precision(deployed.setting) and "cosine 0." not in shown


def test_an_llm_file_of_a_newer_ov_tuner_is_refused_in_one_line_that_names_no_sweep(llm_db: Path,
                                                                                    tmp_path: Path) -> None:
    import shutil
    import sqlite3

    from ov_tuner.store.tables import RESULTS_SCHEMA_VERSION

    newer = tmp_path / "newer.db"
    shutil.copy(llm_db, newer)
    with sqlite3.connect(newer) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(RESULTS_SCHEMA_VERSION + 1),))
    code, _, err = _cli("show", str(newer))
    assert code != 0 and err.count("\n") == 1 and "sweep" not in err, err
    assert f"v{RESULTS_SCHEMA_VERSION + 1}; this ov-tuner reads up to v{RESULTS_SCHEMA_VERSION}" in err, err


@pytest.mark.parametrize(("tpot_ms", "limited"), [(2.0, False), (22.0, True)])
def test_a_harness_that_takes_most_of_the_budget_alone_says_it_may_have_set_the_users(tpot_ms: float,
                                                                                     limited: bool) -> None:
    """With the model made trivial the harness and GenAI's scheduler alone took `tpot_ms` of a 25 ms budget."""
    trial = LlmTrial(SCHEDULER_DEFAULT, users=40, ttft_ms=np.full(20, 5.0), tpot_ms=np.full(20, tpot_ms),
                     output_tokens=100, wall_s=1.0)
    found = LlmHarness(trial, LlmBudget(ttft_ms=250, tpot_ms=25))
    assert found.limited is limited and found.tpot_share == pytest.approx(tpot_ms / 25)
    job = dataclasses.replace(JOB, budget=LlmBudget(ttft_ms=250, tpot_ms=25))
    answer = llm_answer(StoredLlm("r.db", None, job, (_trial(SCHEDULER_DEFAULT, None, 100.0),), (), (trial,)))
    assert answer.harness == found
    said = dict(answer_lines(answer))["harness"]
    assert said.startswith("limited by ov-tuner's load harness") is limited
    assert f"TPOT p90 {tpot_ms:.3g} ms ({tpot_ms / 25:.0%} of the budget)" in said


def test_instances_split_the_cores_into_runs_of_neighbours() -> None:
    assert core_shares([0, 1, 2, 3, 4], 2) == [[0, 1, 2], [3, 4]]
    # the answer names the cores its instances ran on, from the cpuset it was measured in
    box = Box(host_cpus=8, cpuset=(4, 5, 6, 7), quota_cpus=None, quota_source=None, memory_limit_bytes=None)
    environment = Environment("2026.4.1", "0.1.0", "host", "cpu", 8, "3.11", "/m.gguf", "0" * 64, "m", box=box)
    trials = [_trial(s, r, f + (r or 0)) for r in (None, 0, 1, 2)
              for s, f in ((LlmSetting(instances=2), 2000), (SCHEDULER_DEFAULT, 1000), (PIPELINE_DEFAULT, 990))]
    answer = llm_answer(StoredLlm("r.db", environment, JOB, tuple(trials), ()))
    assert answer.instance_cores == ((4, 5), (6, 7))
    assert core_shares([4, 5], 2) == [[4], [5]]
    assert core_shares(list(range(16)), 4) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]]


def test_two_instances_each_pinned_to_its_core_serve_the_users_together(tiny_q4_gguf: Path) -> None:
    import os

    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.fail("two instances need two cores; this host lends the tests one")
    model, load = read_llm(tiny_q4_gguf), LlmLoad(users=4, seconds=0.4, lead_in_s=0.1, prompt_tokens=(8, 8),
                                                  output_tokens=(4, 4))
    # an instance's process pins itself before OpenVINO loads, then waits until every instance may begin
    with tempfile.TemporaryDirectory() as folder:
        child = subprocess.Popen(child_command(Path(folder) / "r.json"), stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdin is not None and child.stdout is not None
        share = core_shares(cpus, 2)[1]
        child.stdin.write(asked_json("trial", model, "CPU", LlmSetting(threads=len(share)), load, cpus=share) + "\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == READY
        allowed = Path(f"/proc/{child.pid}/status").read_text()
        child.stdin.write("go\n")
        child.stdin.flush()
        child.communicate()
        assert child.returncode == 0 and (Path(folder) / "r.json").is_file()
    assert re.search(r"Cpus_allowed_list:\s*(\S+)", allowed).group(1) == (  # type: ignore[union-attr]
        str(share[0]) if len(share) == 1 else f"{share[0]}-{share[-1]}")

    both = trial_in_process(model, "CPU", LlmSetting(instances=2), load)
    assert both.ok and both.setting.instances == 2
    # every request of both instances is counted, each of 4 tokens; the KV caches are both instances'
    assert both.output_tokens == 4 * both.ttft_ms.size and both.ttft_ms.size >= 4
    # the host's figures are the instances' together: every request, the tokens and memory of both over their mean
    # counted time, the slower start
    a = dataclasses.replace(both, ttft_ms=np.array([1.0, 2.0]), window_tokens=10, window_s=2.0, kv_cache_bytes=100,
                            first_request_ms=5.0)
    b = dataclasses.replace(both, ttft_ms=np.array([3.0]), window_tokens=7, window_s=3.0, kv_cache_bytes=50,
                            first_request_ms=9.0)
    host = merged(LlmSetting(instances=2), [a, b])
    assert host.ttft_ms.tolist() == [1.0, 2.0, 3.0] and host.window_tokens == 17 and host.kv_cache_bytes == 150
    assert host.window_s == 2.5 and host.tokens_per_s == 17 / 2.5
    assert host.first_request_ms == 9.0 and host.setting.instances == 2


def test_more_instances_than_cores_or_with_a_rate_is_one_line(tiny_gguf: Path, tmp_path: Path) -> None:
    import os

    cores = len(os.sched_getaffinity(0))
    code, _, err = _cli("llm", str(tiny_gguf), "--instances", f"1,{cores + 1}", "--users", str(cores + 1),
                        "--out", str(tmp_path / "r.db"))
    assert code == 2 and err.count("\n") == 1 and f"--instances {cores + 1}: each instance is pinned" in err
    code, _, err = _cli("llm", str(tiny_gguf), "--instances", "2", "--rate", "4", "--out", str(tmp_path / "r.db"))
    assert code == 2 and err.count("\n") == 1 and "--instances 2 serves users: give a number of users" in err
    assert not (tmp_path / "r.db").exists()


def test_the_python_form_of_instances_serves_each_request_on_a_pinned_instance(tiny_q4_gguf: Path,
                                                                                tmp_path: Path) -> None:
    import os

    from ov_tuner.workloads.llm.present.forms import llm_python

    two = LlmSetting(instances=2)
    job = dataclasses.replace(JOB, model=read_llm(tiny_q4_gguf), load=LlmLoad(output_tokens=(4, 4)))
    trials = [_trial(s, r, f + (r or 0)) for r in (None, 0, 1, 2)
              for s, f in ((two, 2000), (SCHEDULER_DEFAULT, 1000), (PIPELINE_DEFAULT, 990))]
    answer = llm_answer(StoredLlm("r.db", None, job, tuple(trials), ()))
    assert answer.answer is not None and answer.answer.setting == two
    form = tmp_path / "serve.py"
    form.write_text(llm_python(answer))
    ran = subprocess.run([sys.executable, str(form), "hello", "there", "again"], capture_output=True, text=True,
                         timeout=300, check=True)
    served = [json.loads(line) for line in ran.stdout.splitlines() if line.startswith("{")]
    assert sorted(s["request"] for s in served) == [0, 1, 2] and all(isinstance(s["text"], str) for s in served)
    cores = sorted(os.sched_getaffinity(0))
    used = {tuple(s["cores"]) for s in served}
    # each instance pinned to its own run of cores, its threads that many; with 2 cores or more, both served
    assert all(s["properties"]["INFERENCE_NUM_THREADS"] == len(s["cores"]) for s in served)
    assert len(used) == min(2, len(cores)) and sorted(c for run in used for c in run) == cores


def test_a_quantized_gguf_is_written_as_llama_cpps_q4_1_files_are_and_genai_serves_it(tmp_path: Path) -> None:
    import gguf

    from ov_tuner.workloads.llm.gguf import LlamaShape

    path = write_llama_gguf(tmp_path / "q.gguf", LlamaShape(vocab=600, tied=True), quantized=True)
    kinds = {t.name: t.tensor_type.name for t in gguf.GGUFReader(path).tensors}
    assert kinds["token_embd.weight"] == "Q8_0" and kinds["blk.0.ffn_up.weight"] == "Q4_1"
    assert "output.weight" not in kinds  # tied to the token embedding, as SmolLM2's is
    model = read_llm(path)
    assert model.vocab == 600
    trial = trial_in_process(model, "CPU", SCHEDULER_DEFAULT, LlmLoad(users=2, seconds=0.3, lead_in_s=0.1,
                                                                      prompt_tokens=(8, 8), output_tokens=(4, 4)))
    assert trial.ok and trial.output_tokens == 4 * trial.ttft_ms.size


def test_settings_asked_for_are_walked_beside_the_answer_and_a_failed_one_is_not(tiny_gguf: Path,
                                                                                  tmp_path: Path) -> None:
    from ov_tuner.workloads.llm.job import run_llm
    from ov_tuner.workloads.llm.schema import LlmSpace
    from ov_tuner.workloads.llm.search import LlmSearch
    from ov_tuner.workloads.llm.workload import LlmSpec

    chunked, refused = LlmSetting(max_num_batched_tokens=1024), LlmSetting(kv_cache_precision="f32")
    spec = LlmSpec(model=tiny_gguf, out=tmp_path / "r.db",
                   load=LlmLoad(users=2, seconds=0.3, lead_in_s=0.1, prompt_tokens=(8, 8), output_tokens=(4, 4)),
                   budget=LlmBudget(ttft_ms=60000.0), passes=0, most_users=4, also_walk=(chunked, refused),
                   space=LlmSpace(batched_tokens=(256, 1024), kv_cache_precisions=(None, "f32")),
                   search=LlmSearch.GRID)
    answer = run_llm(spec, lambda trial: None)
    walked = {w.setting: w for w in answer.walks}
    assert chunked in walked and walked[chunked].served == 4  # every load met a minute's budget, up to the most
    # an f32 KV cache on a bf16 CPU is refused: nothing to walk (an f32 CPU runs it, and then it is walked)
    assert (refused in walked) == (refused not in dict(answer.failed))


def test_weights_nncf_leaves_as_they_were_are_one_line_before_anything_is_measured(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ov_tuner.workloads.llm.gguf import LlamaShape

    monkeypatch.setenv("OV_TUNER_CACHE", str(tmp_path / "cache"))
    quantized = write_llama_gguf(tmp_path / "q.gguf", LlamaShape(vocab=600, tied=True), quantized=True)
    code, _, err = _cli("llm", str(quantized), "--weights", "default,int4", "--out", str(tmp_path / "r.db"))
    assert code == 2 and err.count("\n") == 1 and "--weights int4: NNCF finds no weight matrix to compress" in err
    assert not (tmp_path / "r.db").exists()
    assert not [p for p in (tmp_path / "cache" / "llm").iterdir() if "int4" in p.name]  # nothing kept


def test_a_steps_reads_and_tokens_are_judged_against_the_hosts_roofline() -> None:
    model = LlmModel(path="m.gguf", format=LlmFormat.GGUF, sha256="0", architecture="llama", layers=2, width=256,
                     vocab=1000, heads=4, kv_heads=2, feed_forward=512)
    assert model.parameters == 2 * (2 * 256 * 256 + 2 * 256 * 128 + 3 * 256 * 512) + 1000 * 256
    assert model.kv_bytes_per_token(1.0) == 2 * 2 * 2 * 64
    trial = LlmTrial(SCHEDULER_DEFAULT, ttft_ms=np.array([1.0]), tpot_ms=np.array([1.0]), window_s=2.0,
                     window_tokens=400, window_steps=100, window_prompt_tokens=600, window_context_tokens=50_000)
    roofline = Roofline(memory_gbs=10.0, matmul_gflops=((None, "bf16", 100.0), ("f32", "f32", 50.0)),
                        kv_precision="u8", weight_bytes=((None, 90_000_000),))
    bound = decode_bound(model, SCHEDULER_DEFAULT, [trial, trial], roofline)
    assert bound is not None and bound.steps_per_s == 50 and bound.kv_precision == "u8"
    assert bound.kv_bytes_per_step == 500 * 512  # 500 tokens of context a step, 512 bytes each in u8
    assert bound.memory_gbs == pytest.approx(50 * (90e6 + 500 * 512) / 1e9) and bound.memory_share < 0.5
    # 500 tokens/s through the model (200 of them outputs), 2 FLOP a weight each, against the bf16 matmul's 100
    assert bound.gflops == pytest.approx(2 * model.parameters * 500 / 1e9) and bound.matmul_precision == "bf16"
    assert bound.bound is Bound.NEITHER
    assert bound.ceiling_tokens_per_s == pytest.approx(200 / max(bound.memory_share, bound.compute_share))
    # the same steps on a host with a fifth of the bandwidth: bound by memory; a setting asking for f32 inference is
    # judged against the f32 matmul; u4 KV holds half a byte an element
    slow = decode_bound(model, SCHEDULER_DEFAULT, [trial], dataclasses.replace(roofline, memory_gbs=2.0))
    assert slow is not None and slow.bound is Bound.MEMORY
    f32 = decode_bound(model, LlmSetting(inference_precision="f32", kv_cache_precision="u4"), [trial], roofline)
    assert f32 is not None and f32.host_gflops == 50.0 and f32.kv_bytes_per_step == 500 * 256
    # what was not measured gives no figure: no roofline, weights of no stored size, a file from before v16
    assert decode_bound(model, SCHEDULER_DEFAULT, [trial], None) is None
    assert decode_bound(model, LlmSetting(weights="int4"), [trial], roofline) is None
    assert decode_bound(model, SCHEDULER_DEFAULT, [dataclasses.replace(trial, window_steps=0)], roofline) is None


def test_a_share_shown_as_50_percent_is_judged_as_50_percent() -> None:
    def at(gflops: float) -> Bound:
        return DecodeBound(steps_per_s=1.0, weight_bytes=1, kv_bytes_per_step=0.0, kv_precision="u8", memory_gbs=1.0,
                           host_memory_gbs=10.0, tokens_per_s=1.0, gflops=gflops, host_gflops=100.0,
                           matmul_precision="bf16", output_tokens_per_s=1.0).bound

    assert at(49.9) is Bound.COMPUTE  # '50%' in words: never 'neither ... bound'
    assert at(49.4) is Bound.NEITHER


def test_the_host_roofline_is_measured_and_reads_back_what_ran() -> None:
    import openvino as ov

    assert memory_gbs(1) > 0
    ran, gflops = matmul_gflops(ov.Core(), "CPU", "f32")
    assert ran == "f32" and gflops > 0
    default, _ = matmul_gflops(ov.Core(), "CPU", None)  # the host's own: bf16 where it has it, else f32
    assert default in ("f32", "bf16")


def test_a_file_written_before_v16_resumes_its_job_and_refuses_another(tmp_path: Path) -> None:
    model = LlmModel(path="m.gguf", format=LlmFormat.GGUF, sha256="0", architecture="llama", layers=2, width=256,
                     vocab=1000, heads=4, kv_heads=2, feed_forward=512)
    job = LlmJob(model, "CPU", LlmLoad(), LlmBudget(ttft_ms=500.0), "2026.4.1")
    before = dataclasses.replace(job, model=dataclasses.replace(model, heads=0, kv_heads=0, feed_forward=0))
    with LlmStore(tmp_path / "r.db") as store:
        store.claim_llm(before)  # as v15 stored it: the model without its heads
        store.claim_llm(job)  # the same job, read by this version: resumed
        with pytest.raises(IncompatibleResultsError, match="another LLM job"):
            store.claim_llm(dataclasses.replace(job, device="GPU"))
