"""Qdrant Edge (qdrant-edge-py): Qdrant's engine in process, one shard folder, no server.

What the beta binding lacks is done here and said so: it has no collection metadata, so the
meta (model id, dimension, corpus signature) is a JSON sidecar beside the shard, written
atomically; the shard's own `edge_config.json` is read to check the dimension before loading.
The shard takes a WAL lock: one open handle at a time, across processes too. So readers never
open it: the writer's close() leaves every point in a snapshot file beside the shard, which
readers load into their own memory (corpus.vectors.vector_store_memory, corpus.vectors.vector_readers).

The "hnsw" index (config.vector_index, for ~1M passages) is built otherwise: a graph over int8
scalar-quantised vectors, built by optimize() at close, and no WAL - so no lock: any number of
readers load the shard itself (its vectors are memory-mapped, not copied into each process), and
no snapshot is written. Qdrant does not allow switching the WAL on an existing shard, so a writer
asked for another index than the one stored starts its (private) generation afresh.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from corpus.state.layout import atomic_write_json, read_json
from corpus.vectors.vector_store_base import (
    HNSW_EF_CONSTRUCT,
    HNSW_GRAPH_M,
    HNSW_M,
    HNSW_MEMORY,
    INDEXED_FIELDS,
    INT8_QUANTILE,
    SCROLL_PAGE,
    VectorPoint,
    VectorStoreBusyError,
    VectorStoreError,
    batched,
    best_per_chunk,
    check_vector,
    hnsw_search_settings,
    payload_of,
    point_id,
    rescoring,
)
from corpus.vectors.vector_store_memory import SNAPSHOT_FILE, PointRecord, meta_stamp, write_snapshot

if TYPE_CHECKING:  # the binding itself is imported on first use
    from qdrant_edge import Record, ScoredPoint

SHARD_DIR = "shard"
META_FILE = "meta.json"


def _payload(point: Record | ScoredPoint) -> dict[str, Any]:
    """The payload of a point read with its payload asked for (the binding types it optional)."""
    if point.payload is None:
        raise VectorStoreError("the vector store returned a point without the payload asked for")
    return point.payload


def _dense_vector(record: Record) -> list[float]:
    """The point's one unnamed dense vector: the binding types a vector as any of its kinds (or
    none, when not asked for); this store writes and asks for that kind only."""
    if not isinstance(record.vector, list):
        raise VectorStoreError("the vector store returned a point without the dense vector asked for")
    return cast(list[float], record.vector)


class EdgeVectorStore:
    backend = "edge"

    def __init__(self, folder: Path, dimension: int, read_only: bool = False, index: str = "exact"):
        import qdrant_edge as qe

        self._qe = qe
        self.folder = folder
        self.dimension = dimension
        self.read_only = read_only
        self._deleted = False  # a deletion leaves tombstones: close() then compacts the shard
        # The "hnsw" index's (search beam, int8 oversampling), by its size at the first search;
        # benchmarks/scale_indexes.py sets others to compare.
        self.search_settings: tuple[int, float] | None = None
        shard_path = folder / SHARD_DIR
        config_file = shard_path / "edge_config.json"
        if config_file.exists() and not read_only and stored_index(folder) != index:
            shutil.rmtree(shard_path)  # the writer's own copy: rebuilt from every document
            for name in (META_FILE, SNAPSHOT_FILE):
                (folder / name).unlink(missing_ok=True)
        self.index = stored_index(folder) if config_file.exists() else index
        try:
            if config_file.exists():
                stored = read_json(config_file)["vectors"][""]["size"]
                if stored != dimension:
                    raise VectorStoreError(
                        f"vector store at {folder} holds {stored}-d vectors, "
                        f"asked for {dimension}-d: rebuild the vector_index asset"
                    )
                self._shard = qe.EdgeShard.load(str(shard_path))
            elif read_only:
                raise VectorStoreError(f"no vector store at {folder}: materialise the vector_index asset")
            else:
                self._shard = qe.EdgeShard.create(str(shard_path), self._config(dimension, index))
                for name in INDEXED_FIELDS:
                    self._shard.update(qe.UpdateOperation.create_field_index(name, self._field_schema(name, index)))
        except VectorStoreError:
            raise
        except Exception as error:  # the binding raises bare Exception with Qdrant's message
            if "WouldBlock" in str(error):
                raise VectorStoreBusyError(
                    f"vector store at {folder} is open in another process or "
                    f"handle; embedded Qdrant allows one at a time"
                ) from error
            raise VectorStoreError(f"cannot open vector store at {folder}: {error}") from error

    def _config(self, dimension: int, index: str):
        qe = self._qe
        vectors = qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine)
        if index == "exact":
            return qe.EdgeConfig(
                vectors=vectors,
                hnsw_config=qe.HnswIndexConfig(m=HNSW_M, ef_construct=HNSW_EF_CONSTRUCT, full_scan_threshold=10_000),
            )
        tier = self._tier
        return qe.EdgeConfig(
            vectors=qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine, memory=tier("vectors")),
            wal_enabled=False,
            hnsw_config=qe.HnswIndexConfig(
                m=HNSW_GRAPH_M, ef_construct=HNSW_EF_CONSTRUCT, full_scan_threshold=10_000, memory=tier("graph")
            ),
            quantization_config=qe.ScalarQuantizationConfig(
                qe.ScalarType.Int8, quantile=INT8_QUANTILE, memory=tier("quantized")
            ),
            payload_memory=tier("payload"),
            id_tracker_memory=tier("id_tracker"),
            optimizers=qe.EdgeOptimizersConfig(indexing_threshold=1),
        )

    def _tier(self, part: str):
        """Qdrant's memory tier for one part of the "hnsw" index (vector_store_base.HNSW_MEMORY)."""
        return getattr(self._qe.Memory, HNSW_MEMORY[part].capitalize())

    def _field_schema(self, name: str, index: str):
        qe = self._qe
        integer = INDEXED_FIELDS[name] == "integer"
        if index == "exact":
            return qe.PayloadSchemaType.Integer if integer else qe.PayloadSchemaType.Keyword
        if integer:
            return qe.IntegerIndexParams(lookup=True, range=True, memory=self._tier(name))
        return qe.KeywordIndexParams(memory=self._tier(name))

    def _search_params(self):
        qe = self._qe
        if self.index == "exact":
            return qe.SearchParams(exact=True)
        if self.search_settings is None:
            self.search_settings = hnsw_search_settings(self.count_points())
        ef, oversampling = self.search_settings
        rescore, fetched = rescoring(oversampling)
        return qe.SearchParams(
            hnsw_ef=ef, quantization=qe.QuantizationSearchParams(rescore=rescore, oversampling=fetched)
        )

    @property
    def approximate(self) -> bool:
        return self.index != "exact"

    def _writable(self) -> None:
        if self.read_only:
            raise VectorStoreError(f"vector store at {self.folder} was opened read-only")
        # The snapshot no longer matches once anything changes; close() writes a fresh one.
        (self.folder / SNAPSHOT_FILE).unlink(missing_ok=True)

    def upsert(self, points: list[VectorPoint]) -> None:
        self._writable()
        qe = self._qe
        for batch in batched(points):
            self._shard.update(
                qe.UpdateOperation.upsert_points(
                    [
                        qe.Point(point_id(p.chunk_id, p.piece), check_vector(p.vector, self.dimension), payload_of(p))
                        for p in batch
                    ]
                )
            )
        self._shard.flush()

    def _match(self, key: str, values: list) -> object:
        qe = self._qe
        match = qe.MatchValue(values[0]) if len(values) == 1 else qe.MatchAny(list(values))
        return qe.FieldCondition(key, match=match)

    def delete_document(self, document_id: str) -> None:
        self._writable()
        qe = self._qe
        self._shard.update(
            qe.UpdateOperation.delete_points_by_filter(qe.Filter(must=[self._match("document_id", [document_id])]))
        )
        self._shard.flush()
        self._deleted = True

    def _filter(self, document_ids, year_min, year_max):
        qe = self._qe
        must = []
        if document_ids is not None:
            must.append(self._match("document_id", sorted(set(document_ids))))
        if year_min is not None or year_max is not None:
            must.append(qe.FieldCondition("year", range=qe.RangeFloat(gte=year_min, lte=year_max)))
        return qe.Filter(must=must) if must else None

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
        qe = self._qe
        query = qe.Query.Nearest(check_vector(vector, self.dimension))
        flt = self._filter(document_ids, year_min, year_max)

        def fetch(n: int) -> list[tuple[str, float]]:
            hits = self._shard.query(
                qe.QueryRequest(
                    limit=n,
                    query=query,
                    filter=flt,
                    params=self._search_params(),
                    with_payload=qe.PayloadSelector.Include(["chunk_id"]),
                )
            )
            return [(_payload(hit)["chunk_id"], float(hit.score)) for hit in hits]

        return best_per_chunk(fetch, limit)

    def count_points(self) -> int:
        return int(self._shard.count(self._qe.CountRequest(exact=True)))

    def _payload_values(self, key: str) -> set[str]:
        qe = self._qe
        values: set[str] = set()
        offset = None
        while True:
            records, offset = self._shard.scroll(
                qe.ScrollRequest(offset=offset, limit=SCROLL_PAGE, with_payload=qe.PayloadSelector.Include([key]))
            )
            values.update(_payload(record)[key] for record in records)
            if offset is None:
                return values

    def records(self) -> list[PointRecord]:
        """Every point with its vector (for the readers' snapshot)."""
        qe = self._qe
        rows: list[PointRecord] = []
        offset = None
        while True:
            records, offset = self._shard.scroll(
                qe.ScrollRequest(offset=offset, limit=SCROLL_PAGE, with_payload=True, with_vector=True)
            )
            for record in records:
                payload = _payload(record)
                rows.append(
                    PointRecord(
                        payload["chunk_id"],
                        payload["document_id"],
                        int(payload["piece"]),
                        payload.get("year"),
                        _dense_vector(record),
                    )
                )
            if offset is None:
                return rows

    def write_snapshot(self) -> None:
        """Leave every point beside the shard, stamped with the meta it goes with."""
        meta = self.folder / META_FILE
        stamp = meta_stamp(meta.read_bytes() if meta.exists() else b"")
        write_snapshot(self.folder / SNAPSHOT_FILE, self.records(), self.dimension, stamp)

    def chunk_ids(self) -> set[str]:
        return self._payload_values("chunk_id")

    def document_ids(self) -> set[str]:
        qe = self._qe
        facet = self._shard.facet(qe.FacetRequest("document_id", limit=self.count_points() + 1, exact=True))
        # The exact facet still lists a deleted document, with count 0 (seen in 0.9.0).
        return {str(hit.value) for hit in facet if hit.count > 0}

    def get_meta(self) -> dict:
        path = self.folder / META_FILE
        return read_json(path) if path.exists() else {}

    def set_meta(self, meta: dict) -> None:
        self._writable()
        atomic_write_json(self.folder / META_FILE, meta)

    def optimize(self) -> None:
        """Merge segments and drop deleted points (the binding runs no background optimiser;
        with m = 0 this builds no graph, so it is quick)."""
        self._writable()
        self._shard.optimize()
        self._shard.flush()

    def close(self) -> None:
        if getattr(self, "_shard", None) is None:
            return
        if not self.read_only and (self._deleted or self.approximate):
            self.optimize()  # hnsw: builds the graph and the int8 codes of the new points
        if not self.read_only:
            self._shard.flush()
            if not self.approximate:  # an hnsw shard is read in place, not from a snapshot
                self.write_snapshot()
        self._shard.close()
        del self._shard  # closed: a second close() finds no shard and returns


def stored_index(folder: Path) -> str:
    """ "hnsw" when the generation's shard holds a graph, else "exact"."""
    config = read_json(folder / SHARD_DIR / "edge_config.json")
    return "hnsw" if (config.get("hnsw_config") or {}).get("m", 0) > 0 else "exact"
