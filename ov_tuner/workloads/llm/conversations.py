"""Conversations as a chat server receives them: each simulated user works through a conversation turn by turn, and
each turn's request carries the system prompt, every earlier turn with the model's own reply to it, and the new turn,
through the model's chat template.

Why: a chat endpoint is stateless (OpenAI's API and OVMS's alike), so a user's next request repeats its last one
and adds to it, and every user's begins with the same system prompt. That traffic is where prefix caching and the
batched-token budget pay or cost; independent single requests hide both.

A conversations file is JSONL: a line {"system": "..."} alone sets the system prompt of the conversations after it;
a conversation's line is {"turns": ["...", ...], "output_tokens": N} (or a list of N, one a turn), and may carry a
"system" of its own.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ov_tuner.errors import BadInputError
from ov_tuner.workloads.llm.prompts import LlmRequest, json_object, shared_head

EXAMPLE = '{"system": "You are ..."} then {"turns": ["first message", "next message"], "output_tokens": 64}'

# A chat as GenAI's apply_chat_template takes it.
Messages = list[dict[str, str]]


@dataclass(frozen=True)
class Conversation:
    """One conversation of the file: its system prompt ("" for none), its user turns, the output tokens asked of
    each turn's reply."""

    system: str
    turns: tuple[str, ...]
    output_tokens: tuple[int, ...]


def turn_messages(conversation: Conversation, replies: Sequence[str]) -> Messages:
    """The messages of the conversation's turn after `replies` (the model's replies to its earlier turns, in order):
    the system prompt, each earlier turn and its reply, then the new turn."""
    turn = len(replies)
    messages = [{"role": "system", "content": conversation.system}] if conversation.system else []
    for asked, replied in zip(conversation.turns[:turn], replies, strict=True):
        messages += [{"role": "user", "content": asked}, {"role": "assistant", "content": replied}]
    return [*messages, {"role": "user", "content": conversation.turns[turn]}]


def read_conversations(path: Path) -> list[Conversation]:
    """A conversations file's conversations, each with the system prompt in force on its line; a bad line is one
    error that names it."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise BadInputError(f"cannot read conversations file {path}: {e}; give a UTF-8 JSONL file") from e
    system, found = "", []
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        data = json_object(path, number, text, EXAMPLE)
        if "turns" not in data:
            system = _text(path, number, data.get("system"), "system")
            continue
        own = _text(path, number, data["system"], "system") if "system" in data else system
        found.append(_conversation(path, number, data, own))
    if not found:
        raise BadInputError(f"conversations file {path} holds no conversation; write one JSON object a line, {EXAMPLE}")
    return found


def _text(path: Path, number: int, value: object, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BadInputError(f'{path} line {number}: "{key}" is not some text; write {EXAMPLE}')
    return value


def _conversation(path: Path, number: int, data: dict, system: str) -> Conversation:
    turns = data["turns"]
    if not isinstance(turns, list) or not turns:
        raise BadInputError(f'{path} line {number}: "turns" is not a list of the user\'s messages; write {EXAMPLE}')
    asked = tuple(_text(path, number, turn, "turns") for turn in turns)
    tokens = data.get("output_tokens")
    counts: list[object] = tokens if isinstance(tokens, list) else [tokens] * len(asked)
    whole = [n for n in counts if isinstance(n, int) and not isinstance(n, bool) and n > 0]
    if len(whole) != len(asked) or len(counts) != len(asked):
        raise BadInputError(f'{path} line {number} has "output_tokens" {tokens!r}: give a whole number above 0, or one '
                            "for each turn")
    return Conversation(system, asked, tuple(whole))


@dataclass
class _Going:
    """A user's conversation under way: which of the file's, the token that sets this time through apart from the
    earlier ones (none the first time), and the model's replies so far."""

    conversation: Conversation
    lead: np.ndarray
    asked: int = 0
    replies: list[str] = field(default_factory=list)

    @property
    def waiting(self) -> bool:
        """A turn was sent and no reply came (it was cancelled): the user leaves the conversation."""
        return self.asked > len(self.replies)

    @property
    def done(self) -> bool:
        return self.asked == len(self.conversation.turns)


# A chat to its prompt's token ids (through the chat template), and token ids to the text a user reads.
Encode = Callable[[Messages], np.ndarray]
Decode = Callable[[Sequence[int]], str]


class ConversationRequests:
    """Each user's next request: the next turn of its conversation, or the first of the next conversation in the
    file (taken in turn by whichever user needs one, endlessly). From the second time through the file a
    conversation's every turn carries a token drawn for it right after the head all first turns share (the system
    prompt), so a prefix cache answers the system prompt and the conversation's own history, as a server's does,
    and never a whole turn from an earlier time through."""

    def __init__(self, conversations: Sequence[Conversation], encode: Encode, decode: Decode, vocabulary: np.ndarray,
                 seed: int) -> None:
        self._conversations = list(conversations)
        self._encode, self._decode = encode, decode
        self._vocabulary = vocabulary
        self._rng = np.random.default_rng(seed)
        self._order = itertools.count()
        self._head = shared_head([encode(turn_messages(c, [])) for c in self._conversations])
        self._going: dict[int | None, _Going] = {}

    def next(self, user: int | None) -> LlmRequest:
        going = self._going.get(user)
        if going is None or going.done or going.waiting:
            going = self._going[user] = self._start()
        prompt = self._encode(turn_messages(going.conversation, going.replies)).astype(np.int64)
        going.asked += 1
        return LlmRequest(np.concatenate([prompt[:self._head], going.lead, prompt[self._head:]]),
                          going.conversation.output_tokens[going.asked - 1])

    def replied(self, user: int | None, ids: Sequence[int]) -> None:
        going = self._going.get(user)
        if going is not None and going.waiting:
            going.replies.append(self._decode(ids))

    def _start(self) -> _Going:
        taken = next(self._order)
        through, index = divmod(taken, len(self._conversations))
        lead = self._rng.choice(self._vocabulary, 1) if through else np.array([])
        return _Going(self._conversations[index], lead.astype(np.int64))
