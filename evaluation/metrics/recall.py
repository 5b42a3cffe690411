"""Recall@k: share of the relevant items found in the top k (ranx's "recall@k").

recall@k = |relevant ∩ ranked[:k]| / |relevant|,   0 when nothing is relevant
"""

from __future__ import annotations

from evaluation.metrics.ndcg import check_ranked


def recall_at_k(ranked: list[str], relevant: set[str], k: int) -> float:
    check_ranked(ranked)
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)
