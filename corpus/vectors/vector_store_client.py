"""qdrant-client backends: local mode (`QdrantClient(path=…)`, pure Python, in process) and a
Qdrant server (`QdrantClient(url=…)`) share this one implementation.

The meta lives in the collection's own metadata (under one key, replaced whole). Local mode
ignores payload indexes, so they are only created on a server.
"""

from __future__ import annotations

import numpy as np

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
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
    collection_name,
    hnsw_search_settings,
    payload_of,
    point_id,
    rescoring,
)
from corpus.vectors.vector_store_memory import PointRecord

META_KEY = "quant_rag"


class ClientVectorStore:
    def __init__(self, client, collection: str, backend: str, dimension: int, read_only: bool, index: str = "exact"):
        from qdrant_client import models

        self._m = models
        self._client = client
        self.collection = collection
        self.backend = backend
        self.dimension = dimension
        self.read_only = read_only
        # hnsw (config.vector_index) on a server only: local mode always scans.
        self.index = index if backend == "server" else "exact"
        self.search_settings: tuple[int, float] | None = None  # (HNSW beam, int8 oversampling)

    @classmethod
    def open(
        cls, layout: StateLayout, config: ServedConfig, dimension: int, read_only: bool = False
    ) -> ClientVectorStore:
        from qdrant_client import QdrantClient

        if config.vector_backend == "server":
            if not config.qdrant_url:
                raise VectorStoreError("vector_backend 'server' needs QUANT_RAG_QDRANT_URL")
            client = QdrantClient(url=config.qdrant_url)
        else:
            path = layout.vectors / "local"
            if read_only and not path.exists():
                raise VectorStoreError(f"no vector store at {path}: materialise the vector_index asset")
            try:
                client = QdrantClient(path=str(path))
            except RuntimeError as error:
                if "already accessed" in str(error):
                    raise VectorStoreBusyError(
                        f"vector store at {path} is open in another process "
                        f"or handle; local Qdrant allows one at a time"
                    ) from error
                raise
        store = cls(client, collection_name(config), config.vector_backend, dimension, read_only, config.vector_index)
        store.ensure_collection()
        return store

    def ensure_collection(self) -> None:
        if self._client.collection_exists(self.collection):
            size = self._client.get_collection(self.collection).config.params.vectors.size
            if size != self.dimension:
                raise VectorStoreError(
                    f"collection {self.collection} holds {size}-d vectors, asked for "
                    f"{self.dimension}-d: rebuild the vector_index asset"
                )
            return
        if self.read_only:
            raise VectorStoreError(
                f"no collection {self.collection} ({self.backend}): materialise the vector_index asset"
            )
        self._client.create_collection(self.collection, **self._index_config())
        if self.backend == "server":
            for name in INDEXED_FIELDS:
                self._client.create_payload_index(self.collection, name, field_schema=self._field_schema(name))

    def _tier(self, part: str):
        """Qdrant's memory tier for one part of the "hnsw" index (vector_store_base.HNSW_MEMORY)."""
        return self._m.Memory(HNSW_MEMORY[part])

    def _field_schema(self, name: str):
        m, integer = self._m, INDEXED_FIELDS[name] == "integer"
        if self.index == "exact":
            return m.PayloadSchemaType.INTEGER if integer else m.PayloadSchemaType.KEYWORD
        if integer:
            return m.IntegerIndexParams(
                type=m.IntegerIndexType.INTEGER, lookup=True, range=True, memory=self._tier(name)
            )
        return m.KeywordIndexParams(type=m.KeywordIndexType.KEYWORD, memory=self._tier(name))

    def _index_config(self) -> dict:
        m = self._m
        if self.index == "exact":
            return {
                "vectors_config": m.VectorParams(size=self.dimension, distance=m.Distance.COSINE),
                "hnsw_config": m.HnswConfigDiff(m=HNSW_M),
            }
        return {
            "vectors_config": m.VectorParams(
                size=self.dimension, distance=m.Distance.COSINE, memory=self._tier("vectors")
            ),
            "hnsw_config": m.HnswConfigDiff(m=HNSW_GRAPH_M, ef_construct=HNSW_EF_CONSTRUCT, memory=self._tier("graph")),
            "quantization_config": m.ScalarQuantization(
                scalar=m.ScalarQuantizationConfig(
                    type=m.ScalarType.INT8, quantile=INT8_QUANTILE, memory=self._tier("quantized")
                )
            ),
            "on_disk_payload": HNSW_MEMORY["payload"] == "cold",
        }

    def _writable(self) -> None:
        if self.read_only:
            raise VectorStoreError(f"collection {self.collection} was opened read-only")

    def upsert(self, points: list[VectorPoint]) -> None:
        self._writable()
        m = self._m
        for batch in batched(points):
            self._client.upsert(
                self.collection,
                wait=True,
                points=[
                    m.PointStruct(
                        id=point_id(p.chunk_id, p.piece),
                        vector=check_vector(p.vector, self.dimension),
                        payload=payload_of(p),
                    )
                    for p in batch
                ],
            )

    def _match(self, key: str, values: list):
        m = self._m
        match = m.MatchValue(value=values[0]) if len(values) == 1 else m.MatchAny(any=list(values))
        return m.FieldCondition(key=key, match=match)

    def delete_document(self, document_id: str) -> None:
        self._writable()
        m = self._m
        self._client.delete(
            self.collection,
            wait=True,
            points_selector=m.FilterSelector(filter=m.Filter(must=[self._match("document_id", [document_id])])),
        )

    def _filter(self, document_ids, year_min, year_max):
        m = self._m
        must = []
        if document_ids is not None:
            must.append(self._match("document_id", sorted(set(document_ids))))
        if year_min is not None or year_max is not None:
            must.append(m.FieldCondition(key="year", range=m.Range(gte=year_min, lte=year_max)))
        return m.Filter(must=must) if must else None

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
        m = self._m
        query = check_vector(vector, self.dimension)
        flt = self._filter(document_ids, year_min, year_max)
        # Local mode always scans (and warns when asked to); a server is told to.
        params = None
        if self.backend == "server" and self.index == "exact":
            params = m.SearchParams(exact=True)
        elif self.backend == "server":
            if self.search_settings is None:  # by the collection's size at the first search
                self.search_settings = hnsw_search_settings(self.count_points())
            ef, oversampling = self.search_settings
            rescore, fetched = rescoring(oversampling)
            params = m.SearchParams(
                hnsw_ef=ef, quantization=m.QuantizationSearchParams(rescore=rescore, oversampling=fetched)
            )

        def fetch(n: int) -> list[tuple[str, float]]:
            hits = self._client.query_points(
                self.collection, query=query, limit=n, query_filter=flt, search_params=params, with_payload=["chunk_id"]
            ).points
            return [(hit.payload["chunk_id"], float(hit.score)) for hit in hits]

        return best_per_chunk(fetch, limit)

    def count_points(self) -> int:
        return int(self._client.count(self.collection, exact=True).count)

    def _payload_values(self, key: str) -> set[str]:
        values: set[str] = set()
        offset = None
        while True:
            records, offset = self._client.scroll(
                self.collection, limit=SCROLL_PAGE, offset=offset, with_payload=[key], with_vectors=False
            )
            values.update(record.payload[key] for record in records)
            if offset is None:
                return values

    def records(self) -> list[PointRecord]:
        """Every point with its vector (what a reader loads into memory)."""
        rows: list[PointRecord] = []
        offset = None
        while True:
            records, offset = self._client.scroll(
                self.collection, limit=SCROLL_PAGE, offset=offset, with_payload=True, with_vectors=True
            )
            rows += [
                PointRecord(
                    r.payload["chunk_id"],
                    r.payload["document_id"],
                    int(r.payload["piece"]),
                    r.payload.get("year"),
                    r.vector,
                )
                for r in records
            ]
            if offset is None:
                return rows

    def chunk_ids(self) -> set[str]:
        return self._payload_values("chunk_id")

    def document_ids(self) -> set[str]:
        hits = self._client.facet(self.collection, "document_id", limit=self.count_points() + 1, exact=True).hits
        return {str(hit.value) for hit in hits}

    def get_meta(self) -> dict:
        metadata = self._client.get_collection(self.collection).config.metadata or {}
        return dict(metadata.get(META_KEY) or {})

    def set_meta(self, meta: dict) -> None:
        self._writable()
        self._client.update_collection(self.collection, metadata={META_KEY: meta})

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
