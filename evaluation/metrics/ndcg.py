"""Graded nDCG@k (Järvelin–Kekäläinen linear gains, as `ranx`'s "ndcg").

    DCG@k  = Σ_{r=1..k} gain(item_r) / log2(r + 1)
    IDCG@k = DCG@k of the gold gains sorted in decreasing order (cut at k)
    nDCG@k = min(1, DCG@k / IDCG@k), and 0 when there is no gold (IDCG = 0)

gain(item) is `gains[item]` for a judged item. With `doc_of` (chunk -> document), an unjudged
passage of a document that holds a gold passage earns NEIGHBOUR_GAIN, at most once per such
document (the first one ranked); neighbour credit never enters the ideal, hence the clip at 1.
Without `doc_of` this is plain graded nDCG and equals ranx's `ndcg@k`.
"""

from __future__ import annotations

import math

GOLD_GAIN = 3  # a passage holding the gold quote
NEIGHBOUR_GAIN = 1  # another passage of a gold document


def check_ranked(ranked: list[str]) -> None:
    """A ranking lists each item once; a duplicate would count a hit twice."""
    if len(set(ranked)) != len(ranked):
        raise ValueError("ranked list contains duplicate ids")


def _discount(rank: int) -> float:
    return math.log2(rank + 1)


def ndcg_at_k(ranked: list[str], gains: dict[str, int], k: int = 10, doc_of: dict[str, str] | None = None) -> float:
    check_ranked(ranked)
    positive = {item: g for item, g in gains.items() if g > 0}
    ideal = sum(g / _discount(r) for r, g in enumerate(sorted(positive.values(), reverse=True)[:k], 1))
    if ideal == 0:
        return 0.0
    gold_documents = {doc_of[item] for item in positive if item in doc_of} if doc_of else set()
    credited: set[str] = set()
    dcg = 0.0
    for rank, item in enumerate(ranked[:k], 1):
        gain = positive.get(item, 0)
        if not gain and doc_of:
            document = doc_of.get(item)
            if document in gold_documents and document not in credited:
                credited.add(document)
                gain = NEIGHBOUR_GAIN
        dcg += gain / _discount(rank)
    return min(1.0, dcg / ideal)
