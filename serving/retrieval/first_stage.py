"""The first stage: one input's dense and BM25 rankings over the parts, and their fusion."""

from __future__ import annotations

from concurrent.futures import Executor
from typing import TYPE_CHECKING

import numpy as np

from corpus.indexes.passage_store import LARGE_STATE_PASSAGES
from serving.retrieval.scope import Scope
from serving.retrieval.selection import Candidate, convex_fusion, reciprocal_rank_fusion

if TYPE_CHECKING:
    from serving.retrieval.parts import Parts


def dense(
    parts: Parts,
    text: str,
    pool: int,
    allowed: set[str] | None,
    scope: Scope | None = None,
    vector: np.ndarray | None = None,
) -> list[Candidate]:
    """`allowed`: the documents in `scope`. A scope of years only is passed to the vector store
    as its year range instead (every point carries its document's publication year): the same
    points, but a range condition where a match list of hundreds of ids slows a large state's
    search (docs/measurements.md, "Serving a larger state"). `vector`: the question's, when
    already embedded (late interaction embeds it with its tokens)."""
    if vector is None:
        vector = parts.embedder.embed_query(text)
    prefilter = parts.built("dense_prefilter")  # used once built, never waited for
    if allowed is None and prefilter:
        found = prefilter[0].search(vector, pool)
    elif allowed is not None and scope is not None and not scope.authors and scope.document_ids is None:
        found = parts.vectors.search(vector, pool, year_min=scope.year_min, year_max=scope.year_max)
    else:
        ids = sorted(allowed) if allowed is not None else None
        found = parts.vectors.search(vector, pool, document_ids=ids)
    return [Candidate(cid, float(score)) for cid, score in found]


def lexical(parts: Parts, text: str, pool: int, allowed: set[str] | None) -> list[Candidate]:
    return [Candidate(cid, float(score)) for cid, score in parts.bm25.search(text, pool, document_ids=allowed)]


def fused(
    parts: Parts,
    threads: Executor,
    text: str,
    vector: np.ndarray | None,
    size: int,
    allowed: set[str] | None,
    scope: Scope,
) -> tuple[list[Candidate], list[Candidate]]:
    """(dense and BM25 fused, the dense ranking) for one input. Over a large state the dense
    search runs on `threads` while BM25 scores here (ONNX Runtime and numpy release the GIL)."""
    config = parts.config
    if parts.is_open("bm25") and parts.bm25.doc_count >= LARGE_STATE_PASSAGES:
        pending = threads.submit(dense, parts, text, size, allowed, scope, vector)
        found = lexical(parts, text, size, allowed)
        near = pending.result()  # its exception, if any, is raised here as if inline
    else:
        near, found = dense(parts, text, size, allowed, scope, vector), lexical(parts, text, size, allowed)
    rankings, weights = [near, found], [config.dense_weight, config.bm25_weight]
    if config.fusion == "convex":
        return convex_fusion(rankings, weights), near
    return reciprocal_rank_fusion(rankings, config.rrf_k, weights), near
