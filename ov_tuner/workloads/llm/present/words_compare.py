"""The words of LLM results files side by side: what differs between where they were measured, each file's answer
and the load it serves, and every setting all of them searched."""

from __future__ import annotations

from ov_tuner.workloads.llm.compare import LlmComparison
from ov_tuner.workloads.llm.present.words import load_amount
from ov_tuner.workloads.llm.present.words_setting import setting_text


def comparison_lines(comparison: LlmComparison) -> list[str]:
    """The comparison as the terminal prints it."""
    answers = comparison.answers
    lines = [f"file {i + 1}: {a.results}" for i, a in enumerate(answers)]
    lines += [f"differs: {field}: {' | '.join(values)}" for field, values in comparison.differences] or \
        ["differs: nothing recorded (the same host, model, OpenVINO and GenAI)"]
    for i, a in enumerate(answers):
        deploy = setting_text(a.answer.setting) if a.answer else "nothing (no setting met the budget)"
        walk = next((w for w in a.walks if a.answer is not None and w.setting == a.answer.setting), None)
        served = "" if walk is None else (f", serving {load_amount(walk.served, a.job.load.closed)}"
                                          f"{' or more' if walk.at_ceiling else ''} within the budget")
        lines.append(f"file {i + 1} deploys {deploy}{served}")
    if not comparison.matched:
        return [*lines, "no setting was searched in every file"]
    lines.append("settings searched in every file (output tokens/s, TTFT p90; the ratio to file 1's tokens/s, one "
                 "search trial each, no interval):")
    for m in comparison.matched:
        cells = [f"{f.tokens_per_s:.0f} tokens/s, {f.latencies.ttft_ms[1]:.1f} ms"
                 + ("" if i == 0 else f" ({ratio:.2f}x)")
                 for i, (f, ratio) in enumerate(zip(m.figures, m.ratios, strict=True))]
        lines.append(f"  {setting_text(m.setting)}: {' | '.join(cells)}")
    return lines
