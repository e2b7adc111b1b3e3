"""What an LLM setting says, in words: its next tokens and logits against f32 inference, its greedy text against GenAI's
scheduler default's and, with a lossless knob, against the same setting without it; its reply to the first request;
the settings held back and why."""

from __future__ import annotations

import json

from ov_tuner.workloads.llm.answer_record import LlmAnswer
from ov_tuner.workloads.llm.present.words_setting import setting_text
from ov_tuner.workloads.llm.schema import (
    AGREEMENT_PROMPTS,
    AGREEMENT_TOKENS,
    SCHEDULER_DEFAULT,
    LlmSetting,
)

# The most characters of the prompt a reply line quotes.
ASKED_CHARS = 80


def outputs_text(answer: LlmAnswer, setting: LlmSetting) -> str:
    """'99.2% of next tokens chosen as f32 chooses them along its own continuation (GenAI's scheduler default:
    98.8%) ...; greedy text 87.5% alike with GenAI's scheduler default's ...; the logits choosing the first token:
    cosine ...'."""
    share, next_tokens = answer.agreements.get(setting), answer.next_tokens.get(setting)
    if share is None:
        return "not compared with GenAI's scheduler default (its outputs were not read)"
    parts = []
    if next_tokens is not None:
        default = answer.next_tokens.get(SCHEDULER_DEFAULT)
        beside = ("" if default is None or setting == SCHEDULER_DEFAULT else
                  f"; GenAI's scheduler default: {default:.1%}")
        parts.append(f"{next_tokens:.1%} of next tokens chosen as f32 inference chooses them along its own greedy "
                     f"continuation ({AGREEMENT_PROMPTS} prompts x {AGREEMENT_TOKENS} tokens{beside})")
    if setting != SCHEDULER_DEFAULT:
        rounding = "" if setting in answer.judged else ", where only rounding parts them: no precision changed"
        parts.append(f"greedy text {share:.1%} alike with GenAI's scheduler default's, up to the first token that "
                     f"differs{rounding}")
    check = answer.lossless.get(setting)
    if check is not None:
        parts.append(f"{check.alike:.1%} alike with the same setting's without {_knobs(setting)} (rounding alone: "
                     f"{check.floor:.1%}{', beyond it: held back' if check.differs else ''})")
    compared = setting in answer.cosines or setting in answer.judged  # one changing no precision has the default's
    return "; ".join([*parts, *([cosine_text(answer, setting)] if compared else [])])


def reply_text(answer: LlmAnswer, setting: LlmSetting) -> str | None:
    """'to "What is the capital of France?": "The capital of France is Paris." (GenAI's scheduler default: "...")', the
    answer of `setting` to a prompts file's first line, beside GenAI's scheduler default's where it differs; None
    unread."""
    if setting not in answer.replies:
        return None
    asked, reply = answer.replies[setting]
    asked = asked if len(asked) <= ASKED_CHARS else asked[:ASKED_CHARS - 3] + "..."
    default = answer.replies.get(SCHEDULER_DEFAULT)
    beside = ("" if setting == SCHEDULER_DEFAULT or default is None else
              f" (GenAI's scheduler default: {json.dumps(default[1], ensure_ascii=False)})")
    return f"to {json.dumps(asked, ensure_ascii=False)}: {json.dumps(reply, ensure_ascii=False)}{beside}"


def cosine_text(answer: LlmAnswer, setting: LlmSetting) -> str:
    """'the logits choosing the first token: cosine 0.99998 or more against f32 inference and KV cache'."""
    cosine = answer.cosines.get(setting)
    if cosine is None:
        return ("the logits choosing the first token not compared (the model IR did not compile on the device at f32 "
                "or at this setting, or the file is older than this figure)")
    return f"the logits choosing the first token: cosine {cosine:.5f} or more against f32 inference and KV cache"


def _held_because(answer: LlmAnswer, setting: LlmSetting) -> str:
    """'87.5% alike', or what its lossless knob changed against rounding alone."""
    if setting in answer.judged:
        return f"{answer.judged[setting]:.1%} alike"
    check = answer.lossless[setting]
    return (f"greedy text {check.alike:.1%} alike with the same setting's without {_knobs(setting)}, where rounding "
            f"alone gives {check.floor:.1%}")


def _knobs(setting: LlmSetting) -> str:
    return " and ".join(name for name, on in (("prefix caching", setting.enable_prefix_caching),
                                              ("prompt lookup", setting.lookup_tokens > 0),
                                              ("the draft model", setting.draft is not None)) if on)


def held_text(answer: LlmAnswer) -> str:
    """What the agreement limit kept out, and how to let it in."""
    held = [f"{setting_text(f.setting)} ({f.tokens_per_s:.0f} tokens/s, {_held_because(answer, f.setting)})"
            for f in answer.held_back]
    judged = [answer.judged[f.setting] for f in answer.held_back if f.setting in answer.judged]
    limit = max(min(judged) - 0.005, 0) if len(judged) == len(held) else 0
    return (f"{'; '.join(held)}: under the {answer.min_agreement:.0%} agreement limit; `ov-tuner llm ... "
            f"--min-agreement {limit:.2f}` lets {'it' if len(held) == 1 else 'them'} in")
