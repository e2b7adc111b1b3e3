"""The requests of an LLM load: a prompt (as token ids) and the output length asked of it, from the user's prompts
file or generated from the model's vocabulary. A prompts file's line is a prompt's text, sent as it is (as a server's
completions endpoint does), or chat messages, which the model's chat template makes the prompt of (as a server's chat
endpoint does).

Why token ids: a generated prompt has exactly the length asked, and no two prompts share a token sequence unless the
load asks for a shared prefix, so a prefix cache cannot answer one request from another. A prompts file's line used
a second time in a trial starts with a token of its own for the same reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ov_tuner.errors import BadInputError

ROLES = ("system", "user", "assistant")
EXAMPLE = ('{"prompt": "...", "output_tokens": 128} or {"messages": [{"role": "user", "content": "..."}], '
           '"output_tokens": 128}')


@dataclass(frozen=True)
class PromptLine:
    """One line of a prompts file: the prompt's text, or the chat (role, content) the chat template makes it of; and
    the output tokens asked of it."""

    output_tokens: int
    prompt: str = ""
    messages: tuple[tuple[str, str], ...] = ()

    def chat(self) -> list[dict[str, str]]:
        """The messages as GenAI's apply_chat_template takes them."""
        return [{"role": role, "content": content} for role, content in self.messages]


# A tokenizer as the requests need it: a line to its prompt's token ids.
Encode = Callable[[PromptLine], np.ndarray]


@dataclass(frozen=True)
class LlmRequest:
    prompt: np.ndarray  # int64 token ids
    output_tokens: int


class Requests(Protocol):
    """Where a load's requests come from: each user's next (None: an open loop's arrival), told of each reply."""

    def next(self, user: int | None) -> LlmRequest: ...

    def replied(self, user: int | None, ids: Sequence[int]) -> None: ...


class RequestStream:
    """Requests that hang on no user and no reply: generated ones, or a prompts file's lines in turn."""

    def __init__(self, requests: Iterator[LlmRequest]) -> None:
        self._requests = requests

    def next(self, user: int | None) -> LlmRequest:
        return next(self._requests)

    def replied(self, user: int | None, ids: Sequence[int]) -> None:
        """A reply changes nothing that follows."""


def read_prompts(path: Path) -> list[PromptLine]:
    """A JSONL prompts file: one object a line with "prompt" (text) or "messages" (chat messages, each a role and
    its content, the last the user's) and "output_tokens" (a whole number above 0). A bad line is one error that
    names it."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise BadInputError(f"cannot read prompts file {path}: {e}; give a UTF-8 JSONL file") from e
    found = [_line(path, number, text) for number, text in enumerate(lines, 1) if text.strip()]
    if not found:
        raise BadInputError(f"prompts file {path} holds no prompt; write one JSON object a line, {EXAMPLE}")
    return found


def json_object(path: Path, number: int, text: str, example: str) -> dict:
    """A JSONL file's line as the object it must be, or one error naming the line and saying what to write."""
    try:
        data = json.loads(text)
    except ValueError as e:
        raise BadInputError(f"{path} line {number} is not JSON ({e.args[0]}); each line is {example}") from e
    if not isinstance(data, dict):
        raise BadInputError(f"{path} line {number} is not a JSON object; each line is {example}")
    return data


def _line(path: Path, number: int, text: str) -> PromptLine:
    data = json_object(path, number, text, EXAMPLE)
    tokens = data.get("output_tokens")
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 1:
        raise BadInputError(f'{path} line {number} has "output_tokens" {tokens!r}, not a whole number above 0; each '
                            f"line is {EXAMPLE}")
    if "messages" in data:
        return PromptLine(tokens, messages=_messages(path, number, data["messages"]))
    if not isinstance(data.get("prompt"), str) or not data["prompt"]:
        raise BadInputError(f'{path} line {number} has no "prompt" text nor "messages"; each line is {EXAMPLE}')
    return PromptLine(tokens, prompt=data["prompt"])


def _messages(path: Path, number: int, messages: object) -> tuple[tuple[str, str], ...]:
    """A line's chat: a list of {"role", "content"}, roles among ROLES, the last the user's."""
    found = []
    for message in messages if isinstance(messages, list) else [None]:
        role = message.get("role") if isinstance(message, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if role not in ROLES or not isinstance(content, str) or not content:
            raise BadInputError(f'{path} line {number}: each of "messages" is {{"role": "user", "content": "..."}} '
                                f"with a role among {', '.join(ROLES)} and some content")
        found.append((role, content))
    if not found or found[-1][0] != "user":
        raise BadInputError(f'{path} line {number}: the last of "messages" is the user\'s, the one the model answers')
    return tuple(found)


def line_encoder(tokenizer: Any) -> Encode:
    """`tokenizer` (GenAI's) as the requests use it: a chat through the model's chat template with the assistant's
    turn opened, a prompt's text as it is; the special tokens are the template's own, none added."""
    chat = chat_encoder(tokenizer)

    def encode(line: PromptLine) -> np.ndarray:
        return chat(line.chat()) if line.messages else _token_ids(tokenizer, line.prompt)

    return encode


def chat_encoder(tokenizer: Any) -> Callable[[list[dict[str, str]]], np.ndarray]:
    """Chat messages (as apply_chat_template takes them) to their prompt's token ids, the assistant's turn opened."""

    def encode(messages: list[dict[str, str]]) -> np.ndarray:
        return _token_ids(tokenizer, tokenizer.apply_chat_template(messages, add_generation_prompt=True))

    return encode


def _token_ids(tokenizer: Any, text: str) -> np.ndarray:
    return np.asarray(tokenizer.encode(text, add_special_tokens=False).input_ids.data).reshape(-1)


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
    """The file's lines in turn, endlessly; from the second time through, each with a token drawn anew right after
    the head every line shares (a chat template's system prompt), so that a prefix cache answers the head, as a
    server's does for its users, and never the rest from an earlier time through."""
    encoded = [(encode(line).astype(np.int64), line.output_tokens) for line in lines]
    head = shared_head([prompt for prompt, _ in encoded])
    rng = np.random.default_rng(seed)
    for turn in range(1 << 62):
        for prompt, output in encoded:
            lead = rng.choice(vocabulary, 1).astype(np.int64) if turn else np.array([], dtype=np.int64)
            yield LlmRequest(np.concatenate([prompt[:head], lead, prompt[head:]]), output)


def shared_head(prompts: list[np.ndarray]) -> int:
    """How many tokens every prompt begins with alike, short of the shortest prompt's whole (0 for one prompt)."""
    if len(prompts) < 2:
        return 0
    shortest = min(p.size for p in prompts)
    stacked = np.stack([p[:shortest] for p in prompts])
    differs = np.flatnonzero((stacked != stacked[0]).any(axis=0))
    return int(differs[0]) if differs.size else shortest - 1
