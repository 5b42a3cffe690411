"""The vector store: one interface over Qdrant Edge, qdrant-client's local mode and a Qdrant server.

A passage is stored as one point per embedded piece (see corpus.encoding.embedder.passage_pieces); a search
returns unique chunk_ids, each scored by its best piece. Search is exact (no HNSW graph: m = 0,
exact = True): at this library's scale a full scan takes milliseconds and HNSW's approximation
measurably lost neighbours (benchmarks/vector_backends.py). Distance is cosine. For ~1M passages,
where a scan takes hundreds of milliseconds, `QUANT_RAG_VECTOR_INDEX=hnsw` builds Qdrant's graph over
int8-quantised vectors instead (settings in corpus.vectors.vector_store_base; benchmarks/scale.py).

Payload per point: chunk_id, document_id, piece, year (int or null), authors (folded). Point id:
a UUID derived from (chunk_id, piece), so re-upserting a passage overwrites it.

Embedded stores (edge, local) are single-process: the writer keeps a lock until close(). A
read-only open of one loads its points into the reader's memory instead and holds nothing
(corpus.vectors.vector_readers), so any number of servers and CLI searches read one state at once.
The shared parts live in corpus.vectors.vector_store_base; this module picks and opens a backend.
"""

from __future__ import annotations

from pathlib import Path

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from corpus.vectors.vector_store_base import (
    BACKENDS,
    VectorPoint,
    VectorStore,
    VectorStoreBusyError,
    VectorStoreError,
    best_per_chunk,
    collection_name,
    point_id,
)

__all__ = [
    "BACKENDS",
    "VectorPoint",
    "VectorStore",
    "VectorStoreBusyError",
    "VectorStoreError",
    "best_per_chunk",
    "collection_name",
    "edge_root",
    "open_vector_store",
    "point_id",
]


def edge_root(layout: StateLayout, config: ServedConfig) -> Path:
    """Folder holding the generations of the embedded Edge collection (corpus.state.generations)."""
    return layout.vectors / "edge" / collection_name(config)


def open_vector_store(
    layout: StateLayout, config: ServedConfig, dimension: int, read_only: bool = False, generation: Path | None = None
) -> VectorStore:
    """Open (or, unless read_only, create) the store named by config.vector_backend.

    Edge opens the current generation unless the writer names the one it is building. Read-only
    opens of embedded stores are in-memory readers (see module docstring)."""
    if read_only and config.vector_backend in ("edge", "local"):
        from corpus.vectors.vector_readers import open_edge_reader, open_local_reader

        if config.vector_backend == "edge":
            return open_edge_reader(edge_root(layout, config), dimension, generation)
        return open_local_reader(layout, config, dimension)
    if config.vector_backend == "edge":
        from corpus.state.generations import current_generation
        from corpus.vectors.vector_store_edge import EdgeVectorStore

        folder = generation or current_generation(edge_root(layout, config))
        return EdgeVectorStore(folder, dimension, read_only, index=config.vector_index)
    if config.vector_backend in ("local", "server"):
        from corpus.vectors.vector_store_client import ClientVectorStore

        return ClientVectorStore.open(layout, config, dimension, read_only)
    raise VectorStoreError(f"unknown vector backend {config.vector_backend!r}; expected one of {BACKENDS}")
