"""The words of an LLM's figures and report: titles, axes, the legend's marks (the setting to deploy and GenAI left
alone, named as every figure names them), the sections and the searched settings' table."""

from __future__ import annotations

from ov_tuner.engine.boundary import Boundary
from ov_tuner.workloads.llm.answer_record import PERCENTILES, LlmAnswer
from ov_tuner.workloads.llm.present.words_setting import BASELINE_NAMES, budget_text, load_text, setting_text
from ov_tuner.workloads.llm.schema import LlmBudget, LlmSetting

NO_LLM_ANSWER = "nothing to deploy: no setting met the budget"
HELD_BACK = "held back: says too little as GenAI's scheduler default does"
MISSED = "hollow: missed the budget"
FRONT = "Pareto front"
MET, NOT_MET = "met the budget", "missed it"
TOKENS_AXIS = "output tokens/s"
PASS_AXIS = "pass of the rounds (each contender once a pass, order reversed every other pass)"
USERS_AXIS = "concurrent users tried"
RATE_AXIS = "requests a second tried"

ANSWER_SECTION = "What to deploy"
RUN_SECTION = "How to run it"
RUN_INTRO = "Python (save it as serve.py, run python3 serve.py 'a prompt'): serves the model at the answer's setting " \
    "and prints the KV cache it allocated"
PARETO_SECTION = "Output tokens/s against time to first token: the search's Pareto front"
ROUNDS_SECTION = "The rounds side by side"
USERS_SECTION = "Users served within the budget"
SEARCHED_SECTION = "Every setting searched"
SEARCHED_CAPTION = "as the search measured each (its own trials); the answer's figures above are over the rounds"
SEARCHED_HEADER = ("setting", "tokens/s", "requests/s", *(f"TTFT p{p:g} (ms)" for p in PERCENTILES),
                   *(f"TPOT p{p:g} (ms)" for p in PERCENTILES), "KV cache (MiB)", "greedy text alike",
                   "next tokens alike", "logits cosine",
                   "budget", "marks")


def deployed_mark_text(setting: LlmSetting, drawn: bool) -> str:
    """'deploy (the answer): 1024 batched tokens'; where the figure lacks its point, says so."""
    return f"deploy (the answer): {setting_text(setting)}" + ("" if drawn else ": not in this figure")


def baseline_mark_text(setting: LlmSetting) -> str:
    """'GenAI left alone: LLMPipeline's default'."""
    return f"GenAI left alone: {BASELINE_NAMES[setting]}"


def budget_mark_text(budget: LlmBudget, side: int, shown: bool) -> str:
    """The budget's TTFT (`side` 0) or TPOT (1) as the Pareto figure draws it: a line on its panel, or a note where
    it lies far right of every point."""
    name, limit = ("TTFT", budget.ttft_ms) if side == 0 else ("TPOT", budget.tpot_ms)
    where = "" if shown else ": far right of every point"
    return f"budget: {name} p{budget.percentile:g} within {limit:g} ms{where}"


def latency_axis(side: int, percentile: float) -> str:
    """'TTFT p90 (ms)' or 'TPOT p90 (ms)': the points sit at the budget's percentile."""
    return f"{'TTFT' if side == 0 else 'TPOT'} p{percentile:g} (ms)"


def pareto_title(answer: LlmAnswer) -> str:
    job = answer.job
    return (f"{job.model.architecture} on {job.device}, {load_text(job.load)}: output tokens/s against TTFT and TPOT "
            f"p{job.budget.percentile:g} of every setting searched (up and left is better)")


def rounds_title(answer: LlmAnswer) -> str:
    passes = f"each of {answer.passes} passes" if answer.passes > 1 else "its one pass"
    return f"The rounds: output tokens/s of each contender in {passes} (budget {budget_text(answer.job.budget)})"


def users_title(answer: LlmAnswer) -> str:
    served = "users" if answer.job.load.closed else "requests a second"
    return f"The walk to the most {served} served within the budget ({budget_text(answer.job.budget)})"


def served_text(found: Boundary) -> str:
    """'serves 38 (95%: 34..43)', 'serves 4 or more', 'serves none tried'."""
    if found.served == 0:
        return "serves none tried"
    if found.at_ceiling:
        return f"serves {found.served:g} or more"
    return f"serves {found.served:.3g} (95%: {found.low:.3g}..{found.high:.3g})"


def marks_text(answer: bool, front: bool, held: bool) -> str:
    """The searched table's marks column: 'the answer, Pareto front'."""
    return ", ".join(w for w, on in (("the answer", answer), (FRONT, front), ("held back", held)) if on)


def agreement_text(share: float | None) -> str:
    return "not read" if share is None else f"{share:.1%}"


def cosine_cell(cosine: float | None) -> str:
    """The lowest cosine over the prompts, to 5 places (a change in the 4th is what bf16 does)."""
    return "not read" if cosine is None else f"{cosine:.5f}"


def failed_text(setting: LlmSetting, error: str) -> str:
    return f"{setting_text(setting)}: failed: {error}"


def report_title(answer: LlmAnswer) -> str:
    model = answer.job.model
    return f"ov-tuner LLM report: {model.path} ({model.architecture}, {model.layers} layers) on {answer.job.device}"


def budget_cell(meets: bool) -> str:
    return "met" if meets else "missed"
