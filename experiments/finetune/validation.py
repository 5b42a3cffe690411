"""Validation on held-out documents: does a pseudo-query find its own passage among theirs?

Each held-out query's positive (its passage with the query's words taken out, as in training) is
ranked against every other passage of the held-out documents as the index embeds them; ties count
against the positive. Per-query MRR@10, nDCG@10 (one relevant item: 1/log2(rank + 1)) and
recall@10 are returned, so base and tuned models can be compared paired on the same queries.
"""

from __future__ import annotations

import math

import numpy as np

from corpus.models import Passage
from experiments.finetune.mining import PseudoQuery, embedded_text

CUTOFF = 10


def _encode(model, texts: list[str], batch_size: int = 32) -> np.ndarray:
    return np.asarray(
        model.encode(
            texts, batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False
        ),
        dtype=np.float32,
    )


def ranks(model, queries: list[PseudoQuery], titled: list[tuple[str | None, Passage]]) -> list[int]:
    """The 1-based rank of each query's positive among the held-out passages."""
    chunk_ids = [p.chunk_id for _, p in titled]
    pool = _encode(model, [embedded_text(title, p.section, p.text) for title, p in titled])
    query_vectors = _encode(model, [q.query for q in queries])
    positives = _encode(model, [q.positive for q in queries])
    row_of = {c: i for i, c in enumerate(chunk_ids)}
    out = []
    for q, qv, pv in zip(queries, query_vectors, positives):
        scores = pool @ qv
        scores[row_of[q.chunk_id]] = -np.inf  # the positive is its rest-of-passage text instead
        out.append(1 + int(np.sum(scores >= float(pv @ qv))))
    return out


def per_query_metrics(rank_list: list[int]) -> dict[str, list[float]]:
    """{mrr@10, ndcg@10, recall@10: one value per query}."""
    return {
        "mrr@10": [1.0 / r if r <= CUTOFF else 0.0 for r in rank_list],
        "ndcg@10": [1.0 / math.log2(r + 1) if r <= CUTOFF else 0.0 for r in rank_list],
        "recall@10": [1.0 if r <= CUTOFF else 0.0 for r in rank_list],
    }
