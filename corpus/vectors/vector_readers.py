"""Open an embedded vector store for reading without holding it: any number of readers at once.

Edge: the current generation's snapshot (written by the writer's close) is loaded into memory;
a generation without a valid snapshot (a state written before snapshots) is copied to a private
temporary folder, opened there, read and deleted, so the served folder is never locked by a
reader. qdrant-client's local mode is read the same way through a private copy. Either way the
reader holds no file once loaded and the writer is never blocked.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from corpus.config import ServedConfig
from corpus.state.generations import current_generation
from corpus.state.layout import StateLayout
from corpus.vectors.vector_store_base import VectorStoreError, collection_name
from corpus.vectors.vector_store_memory import SNAPSHOT_FILE, MemoryVectorStore, meta_stamp, read_snapshot, to_arrays

if TYPE_CHECKING:
    from corpus.vectors.vector_store_edge import EdgeVectorStore

ATTEMPTS = 3  # a generation can be promoted away while a reader loads it: take the new one
_IGNORE = shutil.ignore_patterns("*.lock", ".lock", SNAPSHOT_FILE)


def _edge_generation(folder: Path, dimension: int) -> MemoryVectorStore | EdgeVectorStore:
    from corpus.vectors.vector_store_edge import META_FILE, SHARD_DIR, EdgeVectorStore, stored_index

    if not (folder / SHARD_DIR / "edge_config.json").exists():
        raise VectorStoreError(f"no vector store at {folder}: materialise the vector_index asset")
    if stored_index(folder) == "hnsw":
        # Written without a WAL, hence without a lock: opened in place. Opening rewrites only small
        # JSON files, by rename, with the same bytes (seen in 0.9.0), so the links a published
        # generation shares with the writer's are not written through. Nothing is read ahead:
        # Qdrant loads the parts its memory tiers pin and reads the float originals on demand, and
        # pages read ahead would be mapped into the server with each neighbour a rescoring reads.
        return EdgeVectorStore(folder, dimension, read_only=True)
    meta_bytes = (folder / META_FILE).read_bytes() if (folder / META_FILE).exists() else b""
    meta = json.loads(meta_bytes) if meta_bytes else {}
    snapshot = folder / SNAPSHOT_FILE
    if snapshot.exists():
        arrays = read_snapshot(snapshot)
        if str(arrays["stamp"]) == meta_stamp(meta_bytes):
            return MemoryVectorStore(arrays, dimension, meta, "edge", str(folder))
    with tempfile.TemporaryDirectory(prefix="quant-rag-reader-") as scratch:
        copy = Path(scratch) / folder.name
        shutil.copytree(folder, copy, ignore=_IGNORE)
        store = EdgeVectorStore(copy, dimension, read_only=True)
        try:
            records = store.records()
        finally:
            store.close()
    return MemoryVectorStore(to_arrays(records, dimension), dimension, meta, "edge", str(folder))


def open_edge_reader(root: Path, dimension: int, generation: Path | None = None) -> MemoryVectorStore | EdgeVectorStore:
    """The named generation, else the current one: in memory (exact), or in place (hnsw)."""
    for attempt in range(ATTEMPTS):
        folder = generation or current_generation(root)
        try:
            return _edge_generation(folder, dimension)
        except FileNotFoundError as exc:
            if generation is not None or attempt == ATTEMPTS - 1:
                raise VectorStoreError(f"vector store at {folder} vanished while loading: {exc}") from exc
    raise AssertionError("unreachable")


def open_local_reader(layout: StateLayout, config: ServedConfig, dimension: int) -> MemoryVectorStore:
    """qdrant-client's local store, read through a private copy (local mode locks its folder)."""
    from qdrant_client import QdrantClient

    from corpus.vectors.vector_store_client import ClientVectorStore

    path = layout.vectors / "local"
    if not path.exists():
        raise VectorStoreError(f"no vector store at {path}: materialise the vector_index asset")
    with tempfile.TemporaryDirectory(prefix="quant-rag-reader-") as scratch:
        copy = Path(scratch) / "local"
        shutil.copytree(path, copy, ignore=_IGNORE)
        store = ClientVectorStore(
            QdrantClient(path=str(copy)), collection_name(config), "local", dimension, read_only=True
        )
        try:
            store.ensure_collection()
            records, meta = store.records(), store.get_meta()
        finally:
            store.close()
    return MemoryVectorStore(to_arrays(records, dimension), dimension, meta, "local", str(path))
