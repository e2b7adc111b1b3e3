"""Two or more LLM results files side by side (two hosts, two GenAI versions, before and after a change): what each
answers, the load each serves within its budget, and every setting all of them searched, with its output tokens a
second in each and the ratio to the first file's.

Why the same load and budget are required: tokens a second and latency depend on the users and the request lengths
as much as on the setting, so files of other loads would compare the loads. A ratio here is one search trial against
one (no interval): the rounds in each file are what tell settings apart within it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from ov_tuner.analyse.compare import COMPARED_FIELDS, differing_fields
from ov_tuner.errors import BadInputError, Input
from ov_tuner.workloads.llm.answer_record import LlmAnswer, SettingFigures
from ov_tuner.workloads.llm.schema import LlmSetting


@dataclass(frozen=True)
class LlmMatched:
    """A setting every file searched: its figures in each, in the files' order."""

    setting: LlmSetting
    figures: tuple[SettingFigures, ...]

    @property
    def ratios(self) -> tuple[float, ...]:
        """Each file's output tokens a second over the first file's."""
        first = self.figures[0].tokens_per_s
        return tuple(f.tokens_per_s / first if first else float("nan") for f in self.figures)


@dataclass(frozen=True)
class LlmComparison:
    answers: tuple[LlmAnswer, ...]
    differences: tuple[tuple[str, tuple[str, ...]], ...]  # the environment's fields that differ, each file's value
    matched: tuple[LlmMatched, ...]  # fastest first in the first file


def compare_llm(answers: Sequence[LlmAnswer], models_differ: bool = False) -> LlmComparison:
    """Match the files' searched settings; refuse files of other loads or budgets, and of other models unless
    `models_differ`."""
    if len(answers) < 2:
        raise BadInputError("compare: give two or more results files")
    names = ", ".join(a.results for a in answers)
    if len({a.job.model.sha256 for a in answers}) > 1 and not models_differ:
        raise BadInputError(f"compare: the files were measured with different models ({names}); add "
                            f"{Input.MODELS_DIFFER} to compare them anyway")
    if len({(a.job.load, a.job.budget) for a in answers}) > 1:
        raise BadInputError(f"compare: the files were measured under different loads or budgets ({names}); compare "
                            "files of the same users, request lengths and budget")
    fields = [{**(asdict(a.environment) if a.environment else {}), "genai_version": a.job.genai_version}
              for a in answers]
    differences = differing_fields(fields, (*COMPARED_FIELDS, "genai_version"))
    by_file = [{f.setting: f for f in a.searched} for a in answers]
    common = [s for s in by_file[0] if all(s in other for other in by_file[1:])]
    matched = sorted((LlmMatched(s, tuple(figures[s] for figures in by_file)) for s in common),
                     key=lambda m: -m.figures[0].tokens_per_s)
    return LlmComparison(tuple(answers), differences, tuple(matched))
