"""Saved-state store and the stop-string hold-back of the token loop (no model needed)."""

from geoagent_ext.llm.llama_engine import _stop_prefix_len
from geoagent_ext.llm.prefix_cache import PrefixStateCache, common_prefix


def test_common_prefix():
    assert common_prefix([1, 2, 3], [1, 2, 4]) == 2
    assert common_prefix([1, 2], [1, 2, 3]) == 2
    assert common_prefix([], [1]) == 0
    assert common_prefix([5], [6]) == 0


def test_best_is_longest_shared_prefix():
    cache = PrefixStateCache()
    cache.put([1, 2, 3, 4, 9], prompt_len=4, state=b"A")
    cache.put([7, 7, 7, 7, 7], prompt_len=5, state=b"B")
    entry, n = cache.best([1, 2, 3, 4, 5, 6])
    assert entry.state == b"A" and n == 4
    entry, n = cache.best([7, 7, 1])
    assert entry.state == b"B" and n == 2
    assert cache.best([3]) == (None, 0)


def test_samples_of_one_prompt_keep_one_entry():
    cache = PrefixStateCache()
    for completion in ([10, 11], [12], [13, 14, 15]):
        cache.put([1, 2, 3] + completion, prompt_len=3, state=b"s")
    assert len(cache) == 1
    assert list(cache.best([1, 2, 3, 13])[0].tokens) == [1, 2, 3, 13, 14, 15]


def test_eviction_by_bytes_and_entries():
    cache = PrefixStateCache(capacity_bytes=250, max_entries=3)
    for i in range(5):
        cache.put([100 + i] * 10, prompt_len=10, state=b"x" * 60)  # ~100 bytes each
    assert len(cache) == 2 and cache.nbytes <= 250
    assert cache.best([104])[0] is not None and cache.best([100])[0] is None
    cache.put([1], prompt_len=1, state=b"y" * 1000)  # bigger than the budget: not kept
    assert cache.best([1])[0] is None


def test_stop_prefix_hold_back():
    assert _stop_prefix_len("abc```", ["```\n"]) == 3
    assert _stop_prefix_len("abc`", ["```"]) == 1
    assert _stop_prefix_len("abc", ["```"]) == 0
    assert _stop_prefix_len("x <|im", ["<|im_end|>", "zz"]) == 4
    assert _stop_prefix_len("anything", []) == 0
