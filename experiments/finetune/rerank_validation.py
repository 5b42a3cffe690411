"""Reranker validation on held-out documents: hybrid pools of pseudo-queries, rescored.

Every held-out passage is indexed (BM25 as served, dense with the base MiniLM), plus each sampled
query's positive — its passage with the query's words taken out, as in training — as an extra row.
A query's pool excludes its own original passage and the other queries' rows, so its positive can
only be found through the text that does not repeat the query. Dense and BM25 rankings are fused
with RRF (k = 60) as the engine does; the cross-encoder then scores the pool's head.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from corpus.indexes.bm25_store import BM25Index, indexed_text
from corpus.models import Passage
from corpus.text.tokenize import Analyzer
from experiments.finetune.mining import PseudoQuery, embedded_text
from serving.retrieval.selection import Candidate, reciprocal_rank_fusion

POOL = 50
RRF_K = 60


@dataclass(frozen=True)
class Pool:
    query: str
    target: str  # key of the positive row
    ranked: list[Candidate]  # fused, best first
    texts: dict[str, str]  # key -> what the reranker reads


def hybrid_pools(
    embedder, queries: list[PseudoQuery], titled: list[tuple[str | None, Passage]], analyzer: Analyzer, pool: int = POOL
) -> list[Pool]:
    """One fused pool per query over the held-out passages and the queries' positive rows."""
    keys = [p.chunk_id for _, p in titled] + [f"query:{i}" for i in range(len(queries))]
    texts = [embedded_text(t, p.section, p.text) for t, p in titled] + [q.positive for q in queries]
    rows = [(p.chunk_id, p.document_id, indexed_text(t, p.section, p.text)) for t, p in titled]
    rows += [(f"query:{i}", q.document_id, q.positive) for i, q in enumerate(queries)]
    bm25 = BM25Index.in_memory(rows, 1.5, 0.75, analyzer, signature="rerank-validation")
    vectors = _encode(embedder, texts)
    query_vectors = _encode(embedder, [q.query for q in queries])
    text_of = dict(zip(keys, texts))
    out = []
    for i, (q, qv) in enumerate(zip(queries, query_vectors)):
        skip = {q.chunk_id} | {f"query:{j}" for j in range(len(queries)) if j != i}
        lexical = [Candidate(c, s) for c, s in bm25.search(q.query, pool + len(skip)) if c not in skip][:pool]
        scores = vectors @ qv
        order = [j for j in np.argsort(-scores, kind="stable") if keys[j] not in skip][:pool]
        dense = [Candidate(keys[j], float(scores[j])) for j in order]
        ranked = reciprocal_rank_fusion([dense, lexical], RRF_K)[:pool]
        out.append(Pool(q.query, f"query:{i}", ranked, {c.chunk_id: text_of[c.chunk_id] for c in ranked}))
    return out


def _encode(model, texts: list[str]) -> np.ndarray:
    return np.asarray(
        model.encode(texts, batch_size=32, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False),
        dtype=np.float32,
    )


def cross_scores(cross_encoder, pools: list[Pool], depth: int) -> list[list[float]]:
    """The cross-encoder's score of each pool's first `depth` candidates."""
    pairs = [(p.query, p.texts[c.chunk_id]) for p in pools for c in p.ranked[:depth]]
    flat = list(cross_encoder.predict(pairs, batch_size=32, show_progress_bar=False)) if pairs else []
    out, at = [], 0
    for p in pools:
        n = len(p.ranked[:depth])
        out.append([float(s) for s in flat[at : at + n]])
        at += n
    return out


def ndcg_at_10(ranked: list[Candidate], target: str) -> float:
    """One relevant row: 1/log2(rank + 1) within the top 10, else 0."""
    for rank, c in enumerate(ranked[:10], start=1):
        if c.chunk_id == target:
            return 1.0 / math.log2(rank + 1)
    return 0.0
