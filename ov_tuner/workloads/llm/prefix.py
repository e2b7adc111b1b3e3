"""The prompt tokens a pipeline's prefix cache answers, counted from the requests it was sent, by the rule of GenAI's
block manager: the cache holds whole blocks of tokens (32 on a CPU, 16 on a GPU), each keyed by every token up to
its end; a new request takes the longest run of its prompt's leading whole blocks that an earlier request left, and
computes the rest, its last token always.

Why counted: GenAI reports no hits (its SequenceGroup counts them, and nothing it returns says so), yet what the cache
answers decides what prefix caching gives and what the tokens cost the host (ov_tuner.workloads.llm.roofline). The
count assumes a cache that keeps every block it was given: GenAI's grows as needed and evicts only to make room, so
it is what the cache answers while nothing is evicted, an upper bound beyond that.
"""

from __future__ import annotations

import numpy as np

# Tokens a KV cache block holds, by device (GenAI's KVCacheManager: 32 on CPU, 16 on GPU).
BLOCK_TOKENS = {"GPU": 16}
CPU_BLOCK_TOKENS = 32


def block_tokens(device: str) -> int:
    """The block a prefix cache keeps on `device` (as OpenVINO names it: GPU, GPU.1, CPU ...)."""
    return BLOCK_TOKENS.get(device.split(".")[0].upper(), CPU_BLOCK_TOKENS)


class PrefixBlocks:
    """The blocks a pipeline's prefix cache holds, each as the key of every token up to its end."""

    def __init__(self, block: int) -> None:
        self.block = block
        self._held: set[int] = set()

    def _keys(self, tokens: np.ndarray, blocks: int) -> list[int]:
        keys, key = [], 0
        for start in range(0, blocks * self.block, self.block):
            key = hash((key, tokens[start:start + self.block].tobytes()))
            keys.append(key)
        return keys

    def hits(self, prompt: np.ndarray) -> int:
        """The prompt tokens the cache answers: its leading whole blocks held, short of the last token."""
        found = 0
        for key in self._keys(prompt, (prompt.size - 1) // self.block):
            if key not in self._held:
                break
            found += self.block
        return found

    def hold(self, tokens: np.ndarray) -> None:
        """Keep the whole blocks of `tokens` (a prompt once computed, or a prompt and its reply once ended)."""
        self._held.update(self._keys(tokens, tokens.size // self.block))
