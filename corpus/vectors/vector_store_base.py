"""Vector store parts every backend shares: the point, the protocol, payload, ids, batching.

Split from corpus.vectors.vector_store (which opens a backend) so that the backends import this module
and the opener imports them, with no circle between the three.
Payload per point: chunk_id, document_id, piece, year (int or null), authors (folded by
corpus.text.names.fold_name). Point id: a UUID derived from (chunk_id, piece).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from corpus.config import ServedConfig
from corpus.text.names import fold_name

BACKENDS = ("edge", "local", "server")
PAYLOAD_FIELDS = ("chunk_id", "document_id", "piece", "year", "authors")
# Fields with a payload index where the backend uses one; keyword unless listed as integer.
INDEXED_FIELDS = {"chunk_id": "keyword", "document_id": "keyword", "year": "integer", "authors": "keyword"}
HNSW_M = 0  # "exact" index (the default): no graph, searches are exact scans
# The "hnsw" index (ServedConfig.vector_index, for libraries where an exact scan stops scaling):
# Qdrant's graph over int8 scalar-quantised vectors, originals kept for rescoring. Settled by
# benchmarks/scale.py (recall@10 vs exact on real questions); one home for every backend.
HNSW_GRAPH_M = 16
HNSW_EF_CONSTRUCT = 100
# Search-time beam and int8 oversampling (fetch this × limit by int8 score, rescore them with the
# float vectors): the narrowest settings whose recall@10 against the exact scan stays above
# MIN_HNSW_RECALL on real questions (benchmarks/scale_recall.py; docs/measurements.md, "The
# 1M-passage path"); narrower ones lost whole top 10s of some questions.
HNSW_EF = 1024
INT8_OVERSAMPLING = 1.0
INT8_QUANTILE = 0.99  # clip the most extreme values before int8 scaling
# From a million points, the same rule on that size's index (the same command and record).
LARGE_HNSW_POINTS = 1_000_000
LARGE_HNSW_EF, LARGE_INT8_OVERSAMPLING = 2048, 1.0
# Where the "hnsw" index keeps each part (Qdrant's memory tiers): the int8 codes and the graph that a
# search walks on the heap; the float originals (read only to rescore a few candidates), the payload
# (read only for the hits' labels) and the per-passage chunk_id index memory-mapped from the disk, so
# a server's memory grows with the codes, not with the vectors (docs/DESIGN.md §9, "A large state").
HNSW_MEMORY = {
    "vectors": "cold",
    "quantized": "pinned",
    "graph": "pinned",
    "payload": "cold",
    "id_tracker": "pinned",
    "chunk_id": "cold",
    "document_id": "pinned",
    "year": "pinned",
    "authors": "pinned",
}
MIN_HNSW_RECALL = 0.98  # the dense_matches_brute_force check's floor for recall@10 under "hnsw"
UPSERT_BATCH = 256  # Qdrant server request-size friendly
SCROLL_PAGE = 4096  # points per scroll request when listing ids
PIECE_OVERFETCH = 4  # first fetch = limit × this many pieces, doubled until enough chunks
_POINT_NAMESPACE = uuid.UUID("6f1c0a52-3b7e-4f43-9a55-2f3d8f0c4e21")


def hnsw_search_settings(points: int) -> tuple[int, float]:
    """(HNSW search beam, int8 oversampling) for an "hnsw" index holding `points` vectors."""
    if points >= LARGE_HNSW_POINTS:
        return LARGE_HNSW_EF, LARGE_INT8_OVERSAMPLING
    return HNSW_EF, INT8_OVERSAMPLING


def rescoring(oversampling: float) -> tuple[bool, float | None]:
    """(rescore, oversampling) for Qdrant's quantisation search params: an oversampling of 0 keeps
    the int8 scores as they are, so the float originals are never read (a large state's memory)."""
    return (True, oversampling) if oversampling > 0 else (False, None)


class VectorStoreError(RuntimeError):
    """The vector store cannot be opened or written as asked."""


class VectorStoreBusyError(VectorStoreError):
    """An embedded store is held by another process (or another handle in this one)."""


@dataclass
class VectorPoint:
    chunk_id: str
    document_id: str
    piece: int
    vector: np.ndarray
    year: int | None = None
    authors: list[str] = field(default_factory=list)


class VectorStore(Protocol):
    backend: str

    def upsert(self, points: list[VectorPoint]) -> None: ...
    def delete_document(self, document_id: str) -> None: ...
    def search(
        self,
        vector: np.ndarray,
        limit: int,
        document_ids: list[str] | None = None,
        year_min: int | None = None,
        year_max: int | None = None,
    ) -> list[tuple[str, float]]: ...
    def count_points(self) -> int: ...
    def chunk_ids(self) -> set[str]: ...
    def document_ids(self) -> set[str]: ...
    def get_meta(self) -> dict: ...
    def set_meta(self, meta: dict) -> None: ...
    def close(self) -> None: ...


def point_id(chunk_id: str, piece: int) -> str:
    """Deterministic point UUID of one piece of one passage."""
    return str(uuid.uuid5(_POINT_NAMESPACE, f"{chunk_id}#{piece}"))


def payload_of(point: VectorPoint) -> dict:
    return {
        "chunk_id": point.chunk_id,
        "document_id": point.document_id,
        "piece": int(point.piece),
        "year": None if point.year is None else int(point.year),
        "authors": [fold_name(a) for a in point.authors],
    }


def collection_name(config: ServedConfig) -> str:
    """One collection per embedding model, so switching models never mixes vectors."""
    return f"passages-{config.model_key}"


def best_per_chunk(fetch: Callable[[int], list[tuple[str, float]]], limit: int) -> list[tuple[str, float]]:
    """Top `limit` chunks by their best piece. `fetch(n)` returns the top-n pieces as
    (chunk_id, score), best first; it is re-asked with a larger n until the top `limit` chunks
    (ties included) are certain: all pieces seen, or a piece strictly worse than the last kept."""
    if limit <= 0:
        return []
    n = limit * PIECE_OVERFETCH
    while True:
        hits = fetch(n)
        best: dict[str, float] = {}
        for chunk_id, score in hits:
            best.setdefault(chunk_id, score)
        ranked = sorted(best.items(), key=lambda item: (-item[1], item[0]))
        if len(hits) < n or (len(ranked) >= limit and hits[-1][1] < ranked[limit - 1][1]):
            return ranked[:limit]
        n *= 2


def check_vector(vector: np.ndarray, dimension: int) -> list[float]:
    values = np.asarray(vector, dtype=np.float32).reshape(-1)
    if values.shape[0] != dimension:
        raise VectorStoreError(f"vector of dimension {values.shape[0]}, store holds {dimension}")
    return values.tolist()


def batched(items: list, size: int = UPSERT_BATCH) -> Iterable[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
