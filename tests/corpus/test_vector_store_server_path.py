"""The Qdrant *server* code path of corpus.vectors.vector_store_client (`vector_backend = "server"`).

With `QUANT_RAG_QDRANT_URL` set in the environment, these tests run against that Qdrant server
(each test's collection is deleted after it). Without it (as here: no Qdrant server binary can run
offline, it ships as a Rust binary or a container image), qdrant-client's local mode stands in
with the same API. Either way every call the server path makes (collection with its index and
memory settings, payload indexes, search params, filters, facet, metadata) is recorded, and
results must equal a brute force. What local mode cannot show is the server's own behaviour
(payload indexes and memory tiers are accepted but ignored there)."""

from __future__ import annotations

import os

import numpy as np
import pytest
import qdrant_client

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from corpus.vectors.vector_store import VectorStoreError, open_vector_store
from corpus.vectors.vector_store_base import INDEXED_FIELDS, collection_name
from tests.corpus.test_vector_store import DIM, brute_force, did, random_points

REAL_SERVER = os.environ.get("QUANT_RAG_QDRANT_URL")
URL = REAL_SERVER or "http://qdrant.test:6333"


@pytest.fixture()
def server(monkeypatch, tmp_path):
    """Every QdrantClient(url=URL) becomes a local-mode client over one folder; calls recorded."""
    calls: dict[str, list] = {"urls": [], "indexes": [], "search_params": []}
    base = qdrant_client.QdrantClient

    class RecordingClient(base):
        def __init__(self, url=None, **kwargs):
            calls["urls"].append(url)
            if REAL_SERVER:
                super().__init__(url=url, **kwargs)
            else:
                super().__init__(path=str(tmp_path / "server"))

        def create_payload_index(self, collection_name, field_name, field_schema=None, **kwargs):
            calls["indexes"].append((field_name, field_schema))
            return super().create_payload_index(collection_name, field_name, field_schema=field_schema, **kwargs)

        def create_collection(self, collection_name, **kwargs):
            calls.setdefault("collections", []).append(kwargs)
            return super().create_collection(collection_name, **kwargs)

        def query_points(self, *args, search_params=None, **kwargs):
            calls["search_params"].append(search_params)
            return super().query_points(*args, search_params=search_params, **kwargs)

    monkeypatch.setattr(qdrant_client, "QdrantClient", RecordingClient)
    layout = StateLayout(tmp_path)
    config = ServedConfig(vector_backend="server", qdrant_url=URL)
    yield layout, config, calls
    if REAL_SERVER:  # leave the server as found
        base(url=URL).delete_collection(collection_name(config))


def test_server_path_builds_searches_filters_and_keeps_meta(server):
    layout, config, calls = server
    points = random_points()
    store = open_vector_store(layout, config, DIM)
    assert store.backend == "server" and calls["urls"] == [URL]
    assert {name for name, _ in calls["indexes"]} == set(INDEXED_FIELDS)
    store.upsert(points)
    query = np.random.default_rng(9).standard_normal(DIM)
    assert [c for c, _ in store.search(query, 10)] == brute_force(points, query, 10)
    assert all(p is not None and p.exact for p in calls["search_params"])  # a server is told to scan
    docs = [did(0), did(5)]
    assert [c for c, _ in store.search(query, 8, document_ids=docs, year_max=2005)] == brute_force(
        points, query, 8, lambda p: p.document_id in docs and p.year is not None and p.year <= 2005
    )
    store.delete_document(did(1))
    assert did(1) not in store.document_ids() and store.count_points() == sum(p.document_id != did(1) for p in points)
    store.set_meta({"signature": "s1", "model_key": config.model_key})
    store.close()
    reader = open_vector_store(layout, config, DIM, read_only=True)  # a server serves many readers itself
    assert reader.backend == "server" and reader.get_meta() == {"signature": "s1", "model_key": config.model_key}
    with pytest.raises(VectorStoreError, match="read-only"):
        reader.set_meta({})
    reader.close()


def test_server_backend_without_url_and_wrong_dimension(server):
    layout, config, _ = server
    with pytest.raises(VectorStoreError, match="QUANT_RAG_QDRANT_URL"):
        open_vector_store(layout, ServedConfig(vector_backend="server"), DIM)
    open_vector_store(layout, config, DIM).close()
    with pytest.raises(VectorStoreError, match="rebuild"):
        open_vector_store(layout, config, DIM * 2)


def test_server_path_with_the_hnsw_index_builds_a_graph_over_int8_and_searches_it(server):
    from corpus.vectors.vector_store_base import HNSW_EF, HNSW_GRAPH_M, HNSW_MEMORY

    layout, config, calls = server
    store = open_vector_store(layout, config.model_copy(update={"vector_index": "hnsw"}), DIM)
    created = calls["collections"][-1]
    assert created["hnsw_config"].m == HNSW_GRAPH_M and created["quantization_config"].scalar.type == "int8"
    # The memory tiers: int8 codes and graph on the heap, float originals and payload on disk.
    assert created["vectors_config"].memory == "cold" and created["on_disk_payload"] is True
    assert created["hnsw_config"].memory == "pinned" and created["quantization_config"].scalar.memory == "pinned"
    assert {name: str(schema.memory.value) for name, schema in calls["indexes"]} == {
        name: HNSW_MEMORY[name] for name in INDEXED_FIELDS
    }
    points = random_points()
    store.upsert(points)
    query = np.random.default_rng(10).standard_normal(DIM)
    assert [c for c, _ in store.search(query, 10)] == brute_force(points, query, 10)  # local mode scans
    params = calls["search_params"][-1]
    assert not params.exact and params.hnsw_ef == HNSW_EF and params.quantization.rescore
    store.close()
