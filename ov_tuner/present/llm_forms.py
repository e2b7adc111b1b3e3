"""The LLM answer in the forms people run: a Python script serving the model with `openvino_genai` at the setting
that ran (its SchedulerConfig fields and plugin properties), and the record as JSON in the shared envelope.

The tests run the script on the tiny model and compare the KV cache it allocated (the one figure GenAI reads back
that a property changes) with what ov-tuner's own pipeline at the same setting allocated for the same request."""

from __future__ import annotations

from typing import Any

from ov_tuner.analyse.llm import PERCENTILES, LlmAnswer, LlmGain, SettingFigures
from ov_tuner.present.envelope import AnswerKind, envelope
from ov_tuner.present.words.llm import answer_lines, setting_text
from ov_tuner.schema.llm import LlmSetting

# SchedulerConfig's max_num_batched_tokens for no limit, as the script writes it (size_t's largest).
_UNLIMITED = "2**64 - 1"

_SCRIPT = '''"""ov-tuner's LLM answer: {what}.
Serves MODEL with OpenVINO GenAI's continuous batching at the setting that ran; prints one JSON line with the KV cache
it allocated. Add requests as they come (pipe.add_request, then pipe.step until done), or pass a batch to generate."""
import json
import sys

import openvino_genai

MODEL = {model!r}
DEVICE = {device!r}

scheduler = openvino_genai.SchedulerConfig()
scheduler.max_num_batched_tokens = {batched_tokens}
scheduler.max_num_seqs = {max_num_seqs}
scheduler.dynamic_split_fuse = {dynamic_split_fuse}
scheduler.enable_prefix_caching = {enable_prefix_caching}
properties = {properties!r}

pipe = openvino_genai.ContinuousBatchingPipeline(MODEL, scheduler, DEVICE, properties, {{}})
prompt = sys.argv[1] if len(sys.argv) > 1 else "Hello"
config = openvino_genai.GenerationConfig(max_new_tokens=16, min_new_tokens=16, ignore_eos=True)
text = pipe.generate([prompt], [config])[0].m_generation_ids[0]
print(json.dumps({{"text": text, "kv_cache_bytes": pipe.get_metrics().kv_cache_size_in_bytes}}))
'''


def llm_python(answer: LlmAnswer) -> str:
    """The script that serves the model at the answer's setting."""
    assert answer.answer is not None, "an LLM answer with no setting has no form"
    setting, job = answer.answer.setting, answer.job
    return _SCRIPT.format(
        what=setting_text(setting), model=job.model.path, device=job.device,
        batched_tokens=setting.max_num_batched_tokens or _UNLIMITED, max_num_seqs=setting.max_num_seqs,
        dynamic_split_fuse=setting.dynamic_split_fuse, enable_prefix_caching=setting.enable_prefix_caching,
        properties=setting.properties())


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
                 "prompts_file": load.prompts_file, "shared_prefix": load.shared_prefix, "seconds": load.seconds},
        "budget": {"ttft_ms": budget.ttft_ms, "tpot_ms": budget.tpot_ms, "percentile": budget.percentile},
        "answer": None if answer.answer is None else _figures(answer.answer),
        "fastest": None if answer.fastest is None else _figures(answer.fastest),
        "gains": [_gain(g) for g in answer.gains],
        "rounds": answer.rounds,
        "searched": [_figures(f) for f in answer.searched],
        "failed": [{"setting": _setting(s), "error": e} for s, e in answer.failed],
        "pareto": [_setting(f.setting) for f in answer.pareto],
        "agreements": [{"setting": _setting(s), "agreement": share} for s, share in answer.agreements.items()],
        "users_served": [{"setting": _setting(w.setting), "users": w.users, "at_ceiling": w.at_ceiling,
                          "tried": [{"users": n, "met": ok} for n, ok in w.tried]} for w in answer.served],
    }
    held = None if not answer.held_back else {
        "min_agreement": answer.min_agreement,
        "settings": [{**_figures(f), "agreement": answer.agreements[f.setting]} for f in answer.held_back]}
    return envelope(AnswerKind.LLM, body, answer.box, None, held, dict(answer_lines(answer)))


def _setting(setting: LlmSetting) -> dict[str, Any]:
    return {"max_num_batched_tokens": setting.max_num_batched_tokens, "max_num_seqs": setting.max_num_seqs,
            "dynamic_split_fuse": setting.dynamic_split_fuse, "enable_prefix_caching": setting.enable_prefix_caching,
            "properties": setting.properties()}


def _figures(f: SettingFigures) -> dict[str, Any]:
    return {"setting": _setting(f.setting), "trials": f.trials, "output_tokens_per_s": f.tokens_per_s,
            "requests_per_s": f.requests_per_s,
            "ttft_ms": {f"p{p:g}": v for p, v in zip(PERCENTILES, f.latencies.ttft_ms, strict=True)},
            "tpot_ms": {f"p{p:g}": v for p, v in zip(PERCENTILES, f.latencies.tpot_ms, strict=True)},
            "meets_budget": f.meets, "kv_cache_bytes": f.kv_cache_bytes, "peak_rss_bytes": f.peak_rss_bytes,
            "first_request_ms": f.first_request_ms}


def _gain(g: LlmGain) -> dict[str, Any]:
    return {"baseline": _setting(g.baseline), "ratio": g.ratio.value, "low": g.ratio.low, "high": g.ratio.high,
            "rounds": g.ratio.rounds, "confidence": g.ratio.confidence}
