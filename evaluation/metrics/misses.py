"""Miss: a question with no relevant item in its top k.

miss@k = 1  if relevant ∩ ranked[:k] = ∅  else 0      (= 1 − hit_rate@k)
"""

from __future__ import annotations

from evaluation.metrics.ndcg import check_ranked


def is_miss(ranked: list[str], relevant: set[str], k: int = 10) -> bool:
    check_ranked(ranked)
    return relevant.isdisjoint(ranked[:k])
