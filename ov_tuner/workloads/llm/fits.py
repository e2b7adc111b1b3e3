"""A load the model can take, checked before anything runs: every prompt with its output within the positions the
model holds (its context length, read from its file), a shared prefix shorter than the prompts it begins, and a chat
only where the model has a chat template to make its prompt of.

Why before: a request past the context ends in a failed trial (or in a model answering from positions it never
learned) minutes into a run; a prefix as long as a prompt leaves nothing unshared, so "what prefix caching gives"
would measure a cache answering whole prompts.
"""

from __future__ import annotations

from pathlib import Path

from ov_tuner.errors import BadInputError
from ov_tuner.workloads.llm.conversations import Conversation, read_conversations, turn_messages
from ov_tuner.workloads.llm.prompts import PromptLine, line_encoder, read_prompts
from ov_tuner.workloads.llm.schema import SHARED_PREFIX_INPUT, LlmLoad, LlmModel

# A prompts file's line sent again starts with one token of its own (ov_tuner.workloads.llm.prompts.file_requests).
LEAD_TOKENS = 1


def check_load_fits(model: LlmModel, folder: Path, load: LlmLoad) -> None:
    """One line where the load asks what the model cannot take; `folder` holds its tokenizer (a GenAI folder, or the
    one GenAI converts a GGUF to)."""
    if load.prompts_file is not None:
        _check_lines(model, folder, read_prompts(Path(load.prompts_file)), Path(load.prompts_file))
        return
    if load.conversations_file is not None:
        path = Path(load.conversations_file)
        _check_conversations(model, folder, read_conversations(path), path)
        return
    if load.shared_prefix and load.shared_prefix >= load.prompt_tokens[0]:
        raise BadInputError(f"{SHARED_PREFIX_INPUT} {load.shared_prefix} is as long as the shortest prompt "
                            f"({load.prompt_tokens[0]} tokens) or longer: give a prefix shorter than the prompts")
    longest = load.prompt_tokens[1] + load.output_tokens[1]
    if model.context and longest > model.context:
        raise BadInputError(f"prompts of up to {load.prompt_tokens[1]} tokens with outputs of up to "
                            f"{load.output_tokens[1]} need {longest} positions; {model.path} holds {model.context} "
                            "(its context length): ask for shorter prompts or outputs")


def _check_conversations(model: LlmModel, folder: Path, conversations: list[Conversation], path: Path) -> None:
    """Each conversation's last turn as one line: its prompt with every earlier reply empty, and every reply's output
    tokens (a reply takes no more positions than its output tokens, give or take its text's tokenizing anew)."""
    lasts = [PromptLine(sum(c.output_tokens), messages=tuple(
        (m["role"], m["content"]) for m in turn_messages(c, [""] * (len(c.turns) - 1)))) for c in conversations]
    _check_lines(model, folder, lasts, path, "conversation", "by its last turn (its turns, its replies' output tokens")


def _check_lines(model: LlmModel, folder: Path, lines: list[PromptLine], path: Path, item: str = "line",
                 needs: str = "(its prompt, its output tokens") -> None:
    """A chat template where the lines are chats, and each line (its prompt and output) within the context."""
    import openvino_genai

    tokenizer = openvino_genai.Tokenizer(str(folder))
    if any(line.messages for line in lines) and not tokenizer.chat_template:
        raise BadInputError(f'{path} holds chats but {model.path} has no chat template to make a prompt of them: '
                            'give each line a "prompt" text instead')
    if not model.context:
        return
    encode = line_encoder(tokenizer)
    for number, line in enumerate(lines, 1):
        needed = encode(line).size + LEAD_TOKENS + line.output_tokens
        if needed > model.context:
            raise BadInputError(f"{path} {item} {number} needs {needed} positions {needs} and {LEAD_TOKENS} of "
                                f"ov-tuner's); {model.path} holds {model.context} (its context length): shorten it "
                                "or its output")
