"""What the model says at a setting, to tell what the setting changes in it: its greedy continuations of the
held-apart prompts through GenAI's pipeline, the logits' checks against the most exact setting
(ov_tuner.workloads.llm.logits), and its reply to a file's first request, as its user reads it."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path

from ov_tuner.devices.native import ov_error_text
from ov_tuner.workloads.llm.conversations import read_conversations
from ov_tuner.workloads.llm.logits import LogitChecks, logit_checks
from ov_tuner.workloads.llm.measured import LlmOutputs
from ov_tuner.workloads.llm.prompts import read_prompts
from ov_tuner.workloads.llm.schema import (
    AGREEMENT_PROMPTS,
    AGREEMENT_TOKENS,
    SCHEDULER_DEFAULT,
    LlmLoad,
    LlmModel,
    LlmSetting,
)
from ov_tuner.workloads.llm.stepping import generation
from ov_tuner.workloads.llm.trial import HELD_APART_SEED, open_pipeline, reply_decoder, requests_for


def greedy_outputs(model: LlmModel, device: str, setting: LlmSetting, load: LlmLoad, reference: LlmModel | None,
                   with_default: bool = False) -> tuple[LlmOutputs, LogitChecks | None]:
    """What the model says at `setting` on AGREEMENT_PROMPTS held-apart requests (drawn with another seed than the
    trials'; a prompts file's first lines, as written; the first turns of a conversations file's first
    conversations), greedy, AGREEMENT_TOKENS tokens each, with prefix caching after the first alone has filled the
    cache with what they share: compared with GenAI's default's to tell what a setting changes. With them, against
    the most exact setting on `reference` (the weights as given), the logits' checks
    (ov_tuner.workloads.llm.logits), none where the model IR does not compile at f32 or at the setting, or where
    `reference` is None; and with a prompts or conversations file, the reply to its first request, up to the end of
    the answer. `with_default`: GenAI's scheduler default's logits' checks too (on `reference`), beside the setting's
    (the most exact continuation computed once for both); None where not asked or not read."""
    import openvino as ov

    try:
        pipe, _ = open_pipeline(model.path, setting, device)
        requests = requests_for(pipe, model, replace(load, seed=load.seed + HELD_APART_SEED))
        prompts = [requests.next(user).prompt for user in range(AGREEMENT_PROMPTS)]
        config = generation(AGREEMENT_TOKENS, setting.assistant)
        tensors = [ov.Tensor(p.reshape(1, -1)) for p in prompts]
        if setting.enable_prefix_caching:  # the first alone, so that the cache answers what the others share with it
            pipe.generate(tensors[:1], [config])  # type: ignore[attr-defined]
        results = pipe.generate(tensors, [config] * len(prompts))  # type: ignore[attr-defined]
    except RuntimeError as e:
        return LlmOutputs(setting, error=ov_error_text(e)), None
    said = tuple(tuple(int(t) for t in r.m_generation_ids[0]) for r in results)
    asked, reply = _reply(pipe.get_tokenizer(), load, said[0])  # type: ignore[attr-defined]
    del pipe
    checks: list[LogitChecks] = []
    if reference is not None:
        checked = [(model, setting), *([(reference, SCHEDULER_DEFAULT)] if with_default else [])]
        with contextlib.suppress(RuntimeError):
            checks = logit_checks(reference, device, checked, prompts, AGREEMENT_TOKENS)
    mine = checks[0] if checks else LogitChecks((), ())
    return (LlmOutputs(setting, said, first_step_cosines=mine.first_step_cosines,
                       next_token_shares=mine.next_token_shares, asked=asked, reply=reply),
            checks[1] if len(checks) > 1 else None)


def _reply(tokenizer: object, load: LlmLoad, said: tuple[int, ...]) -> tuple[str, str]:
    """The first conversation's first turn, or the prompts file's first line, as its user wrote it (its last
    message, or its text) and the answer to it, up to the end of the answer: none for generated prompts, which are
    no one's words."""
    if load.conversations_file is not None:
        asked = read_conversations(Path(load.conversations_file))[0].turns[0]
    elif load.prompts_file is not None:
        line = read_prompts(Path(load.prompts_file))[0]
        asked = line.messages[-1][1] if line.messages else line.prompt
    else:
        return "", ""
    return asked, reply_decoder(tokenizer)(said)
