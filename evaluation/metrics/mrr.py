"""Reciprocal rank of the first relevant item, over the whole ranking (ranx's "mrr").

    RR = 1 / min{ r : ranked[r] ∈ relevant },   0 when no relevant item is ranked
MRR is its mean over questions.
"""

from __future__ import annotations

from evaluation.metrics.ndcg import check_ranked


def reciprocal_rank(ranked: list[str], relevant: set[str]) -> float:
    check_ranked(ranked)
    for rank, item in enumerate(ranked, 1):
        if item in relevant:
            return 1.0 / rank
    return 0.0
