"""The vector store: one interface over Qdrant Edge, qdrant-client's local mode and a Qdrant server.

A passage is stored as one point per embedded piece (see corpus.embedder.passage_pieces); a search
returns unique chunk_ids, each scored by its best piece. Search is exact (no HNSW graph: m = 0,
exact = True): at this library's scale a full scan takes milliseconds and HNSW's approximation
measurably lost neighbours (benchmarks/vector_backends.py). Distance is cosine.

Payload per point: chunk_id, document_id, piece, year (int or null), authors (folded). Point id:
a UUID derived from (chunk_id, piece), so re-upserting a passage overwrites it.

Embedded stores (edge, local) are single-process: the holder keeps a lock until close().
"""

from __future__ import annotations

import unicodedata
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Protocol

import numpy as np

from corpus.config import ServedConfig
from corpus.state import StateLayout

BACKENDS = ("edge", "local", "server")
PAYLOAD_FIELDS = ("chunk_id", "document_id", "piece", "year", "authors")
# Fields with a payload index where the backend uses one; keyword unless listed as integer.
INDEXED_FIELDS = {"chunk_id": "keyword", "document_id": "keyword", "year": "integer", "authors": "keyword"}
HNSW_M = 0               # no graph: searches are exact scans
UPSERT_BATCH = 256       # Qdrant server request-size friendly
SCROLL_PAGE = 4096        # points per scroll request when listing ids
PIECE_OVERFETCH = 4      # first fetch = limit × this many pieces, doubled until enough chunks
_POINT_NAMESPACE = uuid.UUID("6f1c0a52-3b7e-4f43-9a55-2f3d8f0c4e21")


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
    def search(self, vector: np.ndarray, limit: int, document_ids: list[str] | None = None,
               year_min: int | None = None, year_max: int | None = None) -> list[tuple[str, float]]: ...
    def count_points(self) -> int: ...
    def chunk_ids(self) -> set[str]: ...
    def document_ids(self) -> set[str]: ...
    def get_meta(self) -> dict: ...
    def set_meta(self, meta: dict) -> None: ...
    def close(self) -> None: ...


def point_id(chunk_id: str, piece: int) -> str:
    """Deterministic point UUID of one piece of one passage."""
    return str(uuid.uuid5(_POINT_NAMESPACE, f"{chunk_id}#{piece}"))


def fold_author(name: str) -> str:
    """How an author name is stored and matched: NFKC, case-folded, single spaces."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def payload_of(point: VectorPoint) -> dict:
    return {"chunk_id": point.chunk_id, "document_id": point.document_id, "piece": int(point.piece),
            "year": None if point.year is None else int(point.year),
            "authors": [fold_author(a) for a in point.authors]}


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
        yield items[start:start + size]


def edge_root(layout: StateLayout, config: ServedConfig) -> Path:
    """Folder holding the generations of the embedded Edge collection (corpus.generations)."""
    return layout.vectors / "edge" / collection_name(config)


def open_vector_store(layout: StateLayout, config: ServedConfig, dimension: int,
                      read_only: bool = False, generation: Path | None = None) -> VectorStore:
    """Open (or, unless read_only, create) the store named by config.vector_backend.

    Edge opens the current generation unless the writer names the one it is building."""
    if config.vector_backend == "edge":
        from corpus.generations import current_generation
        from corpus.vector_store_edge import EdgeVectorStore

        folder = generation or current_generation(edge_root(layout, config))
        return EdgeVectorStore(folder, dimension, read_only)
    if config.vector_backend in ("local", "server"):
        from corpus.vector_store_client import ClientVectorStore

        return ClientVectorStore.open(layout, config, dimension, read_only)
    raise VectorStoreError(f"unknown vector backend {config.vector_backend!r}; expected one of {BACKENDS}")
