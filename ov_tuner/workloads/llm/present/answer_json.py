"""The LLM answer record as plain JSON values, in the envelope every answer comes in."""

from __future__ import annotations

from typing import Any

from ov_tuner.engine.boundary import CONFIDENCE
from ov_tuner.present.envelope import envelope, settle_json
from ov_tuner.workloads.llm.answer_record import PERCENTILES, LlmAnswer, LlmGain, SettingFigures
from ov_tuner.workloads.llm.present.words import answer_lines
from ov_tuner.workloads.llm.schema import LlmSetting


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
        "answer_at_its_edge": answer.at_its_edge,
        "rule": answer.rule.value, "rung": answer.rule.rung,
        "walk_gains": [{"baseline": _setting(g.baseline), "difference": g.difference.value, "low": g.difference.low,
                        "high": g.difference.high, "confidence": CONFIDENCE, "differs": g.difference.differs,
                       "to_settle": settle_json(g.settle, "windows")}
                       for g in answer.walk_gains],
        "by_load": [{"setting": _setting(k.setting), "twin": _setting(k.twin),
                     "unit": "users" if job.load.closed else "requests/s",
                     "pays_up_to": k.verdict.pays_up_to, "slower_from": k.verdict.slower_from,
                     "at": [{"load": p.load, "ratio": p.ratio.value, "low": p.ratio.low, "high": p.ratio.high,
                             "passes": p.ratio.passes, "faster": p.faster, "slower": p.slower,
                             "ttft_ms_at_budget": p.at_budget[0], "tpot_ms_at_budget": p.at_budget[1],
                             "meets_budget": p.meets}
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
    return envelope("llm", body, answer.box, None, held, dict(answer_lines(answer)))


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
            "passes": g.ratio.passes, "confidence": g.ratio.confidence, "differs": g.ratio.clear,
            "baseline_meets_budget": g.figures.meets, "to_settle": settle_json(g.settle, "passes")}
