"""Retrieval metrics that need no judge (docs/DESIGN.md §8), checked against `ranx` in the tests."""

from __future__ import annotations

from evaluation.metrics.misses import is_miss
from evaluation.metrics.mrr import reciprocal_rank
from evaluation.metrics.ndcg import GOLD_GAIN, NEIGHBOUR_GAIN, ndcg_at_k
from evaluation.metrics.recall import recall_at_k

NDCG_K = 10
RECALL_KS = (1, 5, 10)
MISS_K = 10
PRIMARY_METRIC = f"ndcg@{NDCG_K}"
METRIC_NAMES = (PRIMARY_METRIC, *(f"recall@{k}" for k in RECALL_KS), "mrr", "miss")

__all__ = [
    "GOLD_GAIN",
    "NEIGHBOUR_GAIN",
    "METRIC_NAMES",
    "PRIMARY_METRIC",
    "evaluate_run",
    "is_miss",
    "ndcg_at_k",
    "recall_at_k",
    "reciprocal_rank",
    "score_query",
]


def score_query(ranked: list[str], gains: dict[str, int], doc_of: dict[str, str] | None = None) -> dict[str, float]:
    """Every metric of METRIC_NAMES for one ranked list (miss as 1.0 / 0.0)."""
    relevant = {item for item, grade in gains.items() if grade > 0}
    scores = {PRIMARY_METRIC: ndcg_at_k(ranked, gains, NDCG_K, doc_of)}
    scores.update({f"recall@{k}": recall_at_k(ranked, relevant, k) for k in RECALL_KS})
    scores["mrr"] = reciprocal_rank(ranked, relevant)
    scores["miss"] = float(is_miss(ranked, relevant, MISS_K))
    return scores


def evaluate_run(
    run: dict[str, list[str]], qrels: dict[str, dict[str, int]], doc_of: dict[str, str] | None = None
) -> dict[str, dict[str, float]]:
    """Per-query metrics for every query of `qrels` with at least one relevant item.

    Queries without any relevant item (negative questions) are left out: no ranking can score on
    them. A query absent from `run` counts as an empty ranking.
    """
    return {
        query: score_query(run.get(query, []), gains, doc_of)
        for query, gains in qrels.items()
        if any(g > 0 for g in gains.values())
    }
