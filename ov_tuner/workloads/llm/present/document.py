"""What `show`, `recommend` and the end of `ov-tuner llm` print for an LLM: each trial (show), then the answer's
lines."""

from __future__ import annotations

from rich.console import Console

from ov_tuner.workloads.llm.answer_record import LlmAnswer
from ov_tuner.workloads.llm.present.words import answer_lines, trial_line


def print_llm(console: Console, answer: LlmAnswer, every_trial: bool) -> None:
    """An LLM's answer as the terminal shows it; with `every_trial`, each stored trial first (show)."""
    lines = [trial_line(t) for t in answer.trials] if every_trial else []
    lines += [f"{label:<11} {text}" for label, text in answer_lines(answer)]
    console.print("\n".join(lines), highlight=False, soft_wrap=True, markup=False)
