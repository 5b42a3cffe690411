"""A read-only vector store held in the reader's own memory: any number of readers at once.

Embedded Qdrant (Edge, local mode) allows one open handle per store, so a reader that kept the
store open would exclude every other server, the CLI and the writer. A reader instead loads the
points once - a matrix of unit vectors plus per-point arrays for the filters (chunk, document,
year) - and holds no file. The search is the same exact cosine scan Qdrant does with m = 0,
ranked as corpus.vectors.vector_store_base.best_per_chunk ranks (best_chunks), so results equal the store's own.

Where the points come from: the snapshot file the writer leaves in each Edge generation when it
closes (`points.npz`, stamped with the SHA-256 of the meta it was written with), else a private
copy of the store opened, scrolled and deleted (states written before snapshots existed).
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus.state.layout import atomic_write_bytes
from corpus.vectors.vector_store_base import PIECE_OVERFETCH, VectorStoreError

SNAPSHOT_FILE = "points.npz"
NO_YEAR = np.iinfo(np.int32).min  # stands for a null year; excluded by any year bound


@dataclass
class PointRecord:
    chunk_id: str
    document_id: str
    piece: int
    year: int | None
    vector: list[float]


def meta_stamp(meta_bytes: bytes) -> str:
    return hashlib.sha256(meta_bytes).hexdigest()


def _codes(values: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(sorted unique values, index of each value in them)."""
    table, index = np.unique(np.asarray(values, dtype=str), return_inverse=True)
    return table, index.astype(np.int32)


def to_arrays(records: Iterable[PointRecord], dimension: int, stamp: str = "") -> dict[str, np.ndarray]:
    """The arrays a MemoryVectorStore holds (and a snapshot file stores)."""
    rows = list(records)
    chunks, chunk_index = _codes([r.chunk_id for r in rows])
    documents, document_index = _codes([r.document_id for r in rows])
    vectors = (
        np.asarray([r.vector for r in rows], dtype=np.float32) if rows else np.zeros((0, dimension), dtype=np.float32)
    )
    return {
        "vectors": vectors,
        "chunks": chunks,
        "chunk_index": chunk_index,
        "documents": documents,
        "document_index": document_index,
        "pieces": np.asarray([r.piece for r in rows], dtype=np.int32),
        "years": np.asarray([NO_YEAR if r.year is None else r.year for r in rows], dtype=np.int32),
        "stamp": np.asarray(stamp),
    }


def write_snapshot(path: Path, records: Iterable[PointRecord], dimension: int, stamp: str) -> None:
    """Write every point of a store to `path` atomically (the writer calls this on close)."""
    buffer = io.BytesIO()
    # allow_pickle: numpy's default, named so that its stubs do not read an array's name as this flag
    np.savez(buffer, allow_pickle=True, **to_arrays(records, dimension, stamp))
    atomic_write_bytes(path, buffer.getvalue())


def read_snapshot(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


class MemoryVectorStore:
    """The VectorStore protocol's read side over arrays in memory (writes are refused)."""

    def __init__(self, arrays: dict[str, np.ndarray], dimension: int, meta: dict, backend: str, origin: str):
        vectors = np.asarray(arrays["vectors"], dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[1] != dimension:
            raise VectorStoreError(
                f"vector store at {origin} holds {vectors.shape[-1]}-d vectors, "
                f"asked for {dimension}-d: rebuild the vector_index asset"
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        self._vectors = vectors / np.where(norms > 0, norms, 1.0)  # Qdrant stores cosine unit vectors
        self._chunks = arrays["chunks"]
        self._chunk_index = arrays["chunk_index"]
        self._documents = arrays["documents"]
        self._document_index = arrays["document_index"]
        self._years = arrays["years"]
        self._meta = meta
        self.backend = backend
        self.dimension = dimension
        self.read_only = True
        self.origin = origin

    @property
    def vectors(self) -> np.ndarray:
        """The stored vectors, one row per point, normalised to unit length (read, never write)."""
        return self._vectors

    @property
    def years(self) -> np.ndarray:
        """Each point's year, in the rows of `vectors` (NO_YEAR where the document has none)."""
        return self._years

    @property
    def nbytes(self) -> int:
        """Memory the arrays hold (vectors dominate)."""
        return sum(
            a.nbytes
            for a in (
                self._vectors,
                self._chunks,
                self._chunk_index,
                self._documents,
                self._document_index,
                self._years,
            )
        )

    def _rows(self, document_ids, year_min, year_max) -> np.ndarray | None:
        """Indexes of the points passing the filters (None: every point)."""
        mask = None
        if document_ids is not None:
            places = np.searchsorted(self._documents, sorted(set(document_ids)))
            wanted = [
                int(i)
                for i, d in zip(places, sorted(set(document_ids)))
                if i < len(self._documents) and self._documents[i] == d
            ]
            mask = np.isin(self._document_index, wanted)
        if year_min is not None or year_max is not None:
            dated = self._years != NO_YEAR
            if year_min is not None:
                dated &= self._years >= year_min
            if year_max is not None:
                dated &= self._years <= year_max
            mask = dated if mask is None else mask & dated
        return None if mask is None else np.flatnonzero(mask)

    def search(
        self,
        vector: np.ndarray,
        limit: int,
        document_ids: list[str] | None = None,
        year_min: int | None = None,
        year_max: int | None = None,
    ) -> list[tuple[str, float]]:
        if document_ids is not None and not document_ids:
            return []
        query = self.unit_query(vector)
        rows = self._rows(document_ids, year_min, year_max)
        matrix = self._vectors if rows is None else self._vectors[rows]
        chunk_index = self._chunk_index if rows is None else self._chunk_index[rows]
        return best_chunks(matrix @ query, chunk_index, self._chunks, limit)

    def unit_query(self, vector: np.ndarray) -> np.ndarray:
        """The query as `search` multiplies it: float32, unit length."""
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.dimension:
            raise VectorStoreError(f"vector of dimension {query.shape[0]}, store holds {self.dimension}")
        norm = float(np.linalg.norm(query))
        return query / norm if norm > 0 else query

    @property
    def chunk_index(self) -> np.ndarray:
        """Each point's row in `chunks` (read, never write)."""
        return self._chunk_index

    @property
    def chunks(self) -> np.ndarray:
        """The distinct chunk ids, sorted."""
        return self._chunks

    def count_points(self) -> int:
        return int(self._vectors.shape[0])

    def chunk_ids(self) -> set[str]:
        return {str(c) for c in self._chunks[np.unique(self._chunk_index)]}

    def document_ids(self) -> set[str]:
        return {str(d) for d in self._documents[np.unique(self._document_index)]}

    def get_meta(self) -> dict:
        return dict(self._meta)

    def _refuse(self, *_args, **_kwargs) -> None:
        raise VectorStoreError(f"vector store at {self.origin} was opened read-only")

    upsert = delete_document = set_meta = _refuse

    def close(self) -> None:
        """Nothing to release: no file is held."""


def best_chunks(scores: np.ndarray, chunk_index: np.ndarray, chunks: np.ndarray, limit: int) -> list[tuple[str, float]]:
    """corpus.vectors.vector_store_base.best_per_chunk over arrays: the top `limit` chunks by their best
    piece, ties by chunk id, the top pieces fetched in doubling rounds until the cut is certain.
    The same answer as the generic loop in numpy, without a Python object per piece."""
    if limit <= 0:
        return []
    n = limit * PIECE_OVERFETCH
    while True:
        rows = top_rows(scores, n)
        found, piece_scores = chunk_index[rows], scores[rows]
        unique, first = np.unique(found, return_index=True)  # rows come best first: first = best piece
        best = piece_scores[first]
        ids = chunks[unique]
        order = np.lexsort((ids, -best))
        if len(rows) < n or (len(order) >= limit and piece_scores[-1] < best[order[limit - 1]]):
            return [(str(ids[i]), float(best[i])) for i in order[:limit]]
        n *= 2


def top_rows(scores: np.ndarray, n: int) -> np.ndarray:
    """Indexes of the n best scores, best first, ties by index (as a stable full sort orders them).
    A partial partition first: sorting every score cost more than the scan past ~100k points.
    A tie cut at the partition's edge only ever reaches best_chunks' last hit, which makes it
    ask again with a larger n, so the ranking is the full sort's."""
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    if n >= scores.shape[0]:
        return np.argsort(-scores, kind="stable")
    head = np.argpartition(-scores, n - 1)[:n]
    return head[np.lexsort((head, -scores[head]))]
