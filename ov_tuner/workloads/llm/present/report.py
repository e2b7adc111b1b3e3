"""An LLM's report: report.html (self-contained) and report.md beside its figures, made of the blocks and written by
the renderers the sweep's report uses (ov_tuner.present.document, ov_tuner.present.pages), so that the two read
alike: the answer's lines, the script that runs it, the figures, and every setting the search measured."""

from __future__ import annotations

from pathlib import Path

from ov_tuner.present.document import Block, Bullets, Code, Facts, Image, Paragraph, Section, Table, Tone, table
from ov_tuner.present.report import ReportFiles, write_pages
from ov_tuner.workloads.llm.answer_record import LlmAnswer
from ov_tuner.workloads.llm.present import words_report as words
from ov_tuner.workloads.llm.present.figures import LlmFigures, write_llm_figures
from ov_tuner.workloads.llm.present.forms import llm_python
from ov_tuner.workloads.llm.present.words import answer_lines
from ov_tuner.workloads.llm.present.words_setting import setting_text


def build_llm_report(answer: LlmAnswer, out_dir: Path) -> ReportFiles:
    """Write report.html, report.md and the figures they show into `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = write_llm_figures(answer, out_dir)
    return write_pages(words.report_title(answer), llm_document(answer, figures), out_dir, figures.all())


def llm_document(answer: LlmAnswer, figures: LlmFigures) -> list[Section]:
    """The answer's lines as the terminal shows them (amber where nothing met the budget), the form that runs it,
    each figure drawn, then every setting searched and every one that failed."""
    found = answer.answer
    sections = [Section(words.ANSWER_SECTION, (Facts(tuple(answer_lines(answer)), Tone.GOOD if found else Tone.WARN),))]
    if found is not None:
        sections.append(Section(words.RUN_SECTION, (Paragraph(words.RUN_INTRO), Code(llm_python(answer), "python"))))
    for title, path in ((words.PARETO_SECTION, figures.pareto), (words.ROUNDS_SECTION, figures.rounds),
                        (words.USERS_SECTION, figures.users)):
        if path is not None:
            sections.append(Section(title, (Image(path, title),)))
    searched: list[Block] = [searched_table(answer)]
    if answer.failed:
        searched.append(Bullets(tuple(dict.fromkeys(words.failed_text(s, e) for s, e in answer.failed)), Tone.WARN))
    sections.append(Section(words.SEARCHED_SECTION, tuple(searched)))
    return sections


def searched_table(answer: LlmAnswer) -> Table:
    """Every setting searched, fastest first, with its figures over its search trials, its agreement with GenAI's
    default, whether it met the budget, and whether it is the answer, on the Pareto front or held back."""
    chosen = answer.answer.setting if answer.answer is not None else None
    front, held = {f.setting for f in answer.pareto}, {f.setting for f in answer.held_back}
    rows = [[setting_text(f.setting), f"{f.tokens_per_s:.0f}", f"{f.requests_per_s:.1f}",
             *(f"{ms:.1f}" for ms in f.latencies.ttft_ms), *(f"{ms:.2f}" for ms in f.latencies.tpot_ms),
             f"{f.kv_cache_bytes / 2**20:.1f}", words.agreement_text(answer.agreements.get(f.setting)),
             words.agreement_text(answer.next_tokens.get(f.setting)), words.cosine_cell(answer.cosines.get(f.setting)),
             words.budget_cell(f.meets), words.marks_text(f.setting == chosen, f.setting in front, f.setting in held)]
            for f in sorted(answer.searched, key=lambda f: -f.tokens_per_s)]
    return table(words.SEARCHED_HEADER, rows, words.SEARCHED_CAPTION, numeric=words.SEARCHED_HEADER[1:13])
