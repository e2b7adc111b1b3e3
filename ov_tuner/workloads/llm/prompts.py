"""The requests of an LLM load: a prompt (as token ids) and the output length asked of it, from the user's prompts
file or generated from the model's vocabulary.

Why token ids: a generated prompt has exactly the length asked, and no two prompts share a token sequence unless the
load asks for a shared prefix, so a prefix cache cannot answer one request from another. A prompts file's line used
a second time in a trial starts with a token of its own for the same reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ov_tuner.errors import BadInputError

# A tokenizer as the requests need it: text to token ids.
Encode = Callable[[str], np.ndarray]


@dataclass(frozen=True)
class PromptLine:
    """One line of a prompts file: the text and the output tokens asked of it."""

    prompt: str
    output_tokens: int


@dataclass(frozen=True)
class LlmRequest:
    prompt: np.ndarray  # int64 token ids
    output_tokens: int


def read_prompts(path: Path) -> list[PromptLine]:
    """A JSONL prompts file: one object a line with "prompt" (text) and "output_tokens" (a whole number above 0).
    A bad line is one error that names it."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise BadInputError(f"cannot read prompts file {path}: {e}; give a UTF-8 JSONL file") from e
    found = [_line(path, number, text) for number, text in enumerate(lines, 1) if text.strip()]
    if not found:
        raise BadInputError(f"prompts file {path} holds no prompt; write one JSON object a line, "
                            '{"prompt": "...", "output_tokens": 128}')
    return found


def _line(path: Path, number: int, text: str) -> PromptLine:
    example = '{"prompt": "...", "output_tokens": 128}'
    try:
        data = json.loads(text)
    except ValueError as e:
        raise BadInputError(f"{path} line {number} is not JSON ({e.args[0]}); each line is {example}") from e
    if not isinstance(data, dict) or not isinstance(data.get("prompt"), str) or not data["prompt"]:
        raise BadInputError(f'{path} line {number} has no "prompt" text; each line is {example}')
    tokens = data.get("output_tokens")
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 1:
        raise BadInputError(f'{path} line {number} has "output_tokens" {tokens!r}, not a whole number above 0; each '
                            f"line is {example}")
    return PromptLine(data["prompt"], tokens)


def generated_requests(vocabulary: np.ndarray, prompt_tokens: tuple[int, int], output_tokens: tuple[int, int],
                       shared_prefix: int, seed: int) -> Iterator[LlmRequest]:
    """Endless requests of random tokens drawn from `vocabulary` (the ids that are no special token), each length
    drawn uniformly from its inclusive range; the first `shared_prefix` tokens the same in all of them."""
    rng = np.random.default_rng(seed)
    prefix = rng.choice(vocabulary, shared_prefix).astype(np.int64)
    while True:
        length = int(rng.integers(prompt_tokens[0], prompt_tokens[1] + 1))
        rest = rng.choice(vocabulary, max(length - shared_prefix, 1)).astype(np.int64)
        yield LlmRequest(np.concatenate([prefix, rest]), int(rng.integers(output_tokens[0], output_tokens[1] + 1)))


def file_requests(lines: list[PromptLine], encode: Encode, vocabulary: np.ndarray, seed: int) -> Iterator[LlmRequest]:
    """The file's lines in turn, endlessly; from the second time through, each starts with a token drawn anew, so
    that no prefix cache answers it from its first time."""
    encoded = [(encode(line.prompt).astype(np.int64), line.output_tokens) for line in lines]
    rng = np.random.default_rng(seed)
    for turn in range(1 << 62):
        for prompt, output in encoded:
            lead = rng.choice(vocabulary, 1).astype(np.int64) if turn else np.array([], dtype=np.int64)
            yield LlmRequest(np.concatenate([lead, prompt]), output)
