"""Fuse ranked lists (embedding, lexical) into one ranking.

Why reciprocal rank fusion: BM25 scores and cosine similarities live on
different scales; ranks do not. Each list contributes ``weight / (k + rank)``
for the items it holds, so an item both methods like rises above items only
one of them likes. Weights and ``k`` were measured with
benchmarks/bench_retrieval.py.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

RRF_K = 60


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[Hashable]],
    weights: Sequence[float] | None = None,
    k: int = RRF_K,
) -> list[tuple[Hashable, float]]:
    """Items of all ``rankings`` (best first), fused, with their fused scores."""
    weights = list(weights) if weights is not None else [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("one weight per ranking")
    scores: dict[Hashable, float] = {}
    for ranking, weight in zip(rankings, weights):
        for rank, item in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank + 1)
    return sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
