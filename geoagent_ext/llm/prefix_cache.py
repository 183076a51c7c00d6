"""Saved llama.cpp states, found again by the longest shared token prefix.

A llama.cpp context keeps the KV cache of only its last evaluation, so it reuses a
prompt prefix only when consecutive calls share it. The agent alternates prompts
(planner, generator, repair), each with its own long stable prefix, and reading a
1500-token prefix costs this CPU ~20 s. This store keeps a few saved states in RAM
(about 12 KB a token for 0.5B, 28 KB for 1.5B) so a call can restore the state whose
tokens share the most with its prompt, then read only the rest.

We keep our own store instead of ``llama_cpp.LlamaRAMCache``: ``Llama.save_state``
also copies up to ``n_batch`` rows of logits (512 x 151936 floats = 300 MB for Qwen)
on every save, and its cache keeps one entry per completion of the same prompt.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np


def common_prefix(a, b) -> int:
    """Length of the common prefix of two token sequences (numpy-fast)."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    n = min(len(a), len(b))
    if n == 0:
        return 0
    diff = np.flatnonzero(a[:n] != b[:n])
    return int(diff[0]) if len(diff) else n


@dataclass
class SavedState:
    tokens: np.ndarray  # the evaluated tokens the state holds (prompt + completion)
    prompt_len: int  # how many of them were the prompt
    state: bytes  # llama_state_get_data output

    @property
    def nbytes(self) -> int:
        return len(self.state) + self.tokens.nbytes


class PrefixStateCache:
    """An LRU of saved states bounded by bytes; lookup by longest common prefix."""

    def __init__(self, capacity_bytes: int = 1 << 30, max_entries: int = 16):
        self.capacity_bytes = capacity_bytes
        self.max_entries = max_entries
        self._entries: OrderedDict[int, SavedState] = OrderedDict()
        self._next_id = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def nbytes(self) -> int:
        return sum(e.nbytes for e in self._entries.values())

    def best(self, tokens) -> tuple[SavedState | None, int]:
        """The entry sharing the longest prefix with tokens, and that length."""
        best, best_len = None, 0
        with self._lock:
            for key, entry in self._entries.items():
                n = common_prefix(entry.tokens, tokens)
                if n > best_len:
                    best, best_len, best_key = entry, n, key
            if best is not None:
                self._entries.move_to_end(best_key)
        return best, best_len

    def put(self, tokens, prompt_len: int, state: bytes) -> None:
        """Store a state; drop entries this one makes redundant, then evict the oldest."""
        entry = SavedState(np.array(tokens, dtype=np.int32), prompt_len, state)
        if entry.nbytes > self.capacity_bytes:
            return
        with self._lock:
            for key in [
                k
                for k, old in self._entries.items()
                # the new entry holds the old one's whole prompt: the old one can only
                # add its completion, which another call rarely repeats
                if common_prefix(old.tokens, entry.tokens) >= old.prompt_len
            ]:
                del self._entries[key]
            self._entries[self._next_id] = entry
            self._next_id += 1
            while len(self._entries) > self.max_entries or (
                self.nbytes > self.capacity_bytes and len(self._entries) > 1
            ):
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
