"""Vector store contract on both embedded backends: exact search (best piece per chunk), filters,
deletion, persistence, meta, and the single-handle lock."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from corpus.vectors.vector_store import (
    VectorPoint,
    VectorStoreBusyError,
    VectorStoreError,
    best_per_chunk,
    open_vector_store,
    point_id,
)

DIM = 32
BACKENDS = ["edge", "local", "edge-hnsw"]  # edge-hnsw: Edge with config.vector_index = "hnsw"


def cid(i: int) -> str:
    return f"chunk-{i:016x}"


def did(i: int) -> str:
    return f"doc-{i:016x}"


def random_points(n_chunks: int = 60, seed: int = 7) -> list[VectorPoint]:
    """Chunks of 1-3 pieces, 6 chunks per document, years 2000-2009 (document 3 undated).
    Small: qdrant-client's local mode commits each point to SQLite on its own."""
    rng = np.random.default_rng(seed)
    points = []
    for i in range(n_chunks):
        doc = i // 6
        year = None if doc % 7 == 3 else 2000 + doc % 10
        for piece in range(1 + i % 3):
            points.append(
                VectorPoint(
                    cid(i), did(doc), piece, rng.standard_normal(DIM).astype(np.float32), year, ["Robert F. Engle"]
                )
            )
    return points


def brute_force(points, query, limit, keep=lambda p: True) -> list[str]:
    q = query / np.linalg.norm(query)
    best: dict[str, float] = {}
    for p in points:
        if keep(p):
            score = float(p.vector @ q / np.linalg.norm(p.vector))
            best[p.chunk_id] = max(best.get(p.chunk_id, -2.0), score)
    return [c for c, _ in sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]]


@pytest.fixture(params=BACKENDS)
def store_factory(request, tmp_path):
    backend, _, index = request.param.partition("-")
    layout = StateLayout(tmp_path)
    config = ServedConfig(vector_backend=backend, vector_index=index or "exact")
    opened = []

    def factory(read_only: bool = False, dimension: int = DIM):
        store = open_vector_store(layout, config, dimension, read_only=read_only)
        opened.append(store)
        return store

    yield factory
    for store in opened:
        store.close()


def test_search_equals_brute_force_best_piece_order(store_factory):
    points = random_points()
    store = store_factory()
    store.upsert(points)
    assert store.count_points() == len(points)
    rng = np.random.default_rng(1)
    for _ in range(5):
        query = rng.standard_normal(DIM).astype(np.float32)
        got = store.search(query, 15)
        assert [c for c, _ in got] == brute_force(points, query, 15)
        assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
        assert len({c for c, _ in got}) == len(got)


def test_filters_by_documents_and_year_range(store_factory):
    points = random_points()
    store = store_factory()
    store.upsert(points)
    query = np.random.default_rng(2).standard_normal(DIM)
    docs = [did(1), did(4), did(3)]
    got = store.search(query, 12, document_ids=docs)
    assert [c for c, _ in got] == brute_force(points, query, 12, lambda p: p.document_id in docs)
    got = store.search(query, 12, year_min=2002, year_max=2004)
    in_range = lambda p: p.year is not None and 2002 <= p.year <= 2004  # noqa: E731 - undated excluded
    assert [c for c, _ in got] == brute_force(points, query, 12, in_range)
    got = store.search(query, 50, document_ids=docs, year_min=2004)
    assert {c for c, _ in got} == {p.chunk_id for p in points if p.document_id == did(4)}
    assert store.search(query, 5, document_ids=[]) == []


def test_delete_document_and_inventory(store_factory):
    points = random_points()
    store = store_factory()
    store.upsert(points)
    store.upsert(points[:5])  # re-upserting overwrites: same point ids
    assert store.count_points() == len(points)
    assert store.document_ids() == {p.document_id for p in points}
    store.delete_document(did(2))
    kept = [p for p in points if p.document_id != did(2)]
    assert store.count_points() == len(kept)
    assert store.chunk_ids() == {p.chunk_id for p in kept}
    assert did(2) not in store.document_ids()
    query = np.random.default_rng(3).standard_normal(DIM)
    assert [c for c, _ in store.search(query, 10)] == brute_force(kept, query, 10)
    store.close()
    reopened = store_factory(read_only=True)
    assert reopened.count_points() == len(kept) and reopened.document_ids() == {p.document_id for p in kept}
    assert [c for c, _ in reopened.search(query, 10)] == brute_force(kept, query, 10)


def test_reopen_persists_points_and_meta_and_locks(store_factory):
    points = random_points(40)
    store = store_factory()
    store.upsert(points)
    meta = {"model_id": "m", "dimension": DIM, "signature": "abc123", "extra": {"k": [1, 2]}}
    store.set_meta({"stale": True})
    store.set_meta(meta)
    assert store.get_meta() == meta
    if getattr(store, "index", "exact") == "exact":  # an hnsw shard has no WAL, hence no lock
        with pytest.raises(VectorStoreBusyError):
            store_factory()
    store.close()
    reopened = store_factory(read_only=True)
    assert reopened.count_points() == len(points)
    assert reopened.get_meta() == meta
    assert reopened.chunk_ids() == {p.chunk_id for p in points}
    query = np.random.default_rng(4).standard_normal(DIM)
    assert [c for c, _ in reopened.search(query, 8)] == brute_force(points, query, 8)
    with pytest.raises(VectorStoreError, match="read-only"):
        reopened.upsert(points[:1])
    with pytest.raises(VectorStoreError, match="read-only"):
        reopened.delete_document(did(0))
    reopened.close()
    with pytest.raises(VectorStoreError, match="rebuild"):
        store_factory(dimension=DIM * 2)


def test_read_only_open_of_a_missing_store_names_the_asset(store_factory):
    with pytest.raises(VectorStoreError, match="vector_index"):
        store_factory(read_only=True)


def test_wrong_dimension_vector_is_refused(store_factory):
    store = store_factory()
    with pytest.raises(VectorStoreError, match="dimension"):
        store.upsert([VectorPoint(cid(0), did(0), 0, np.ones(DIM + 1), None, [])])


def test_best_per_chunk_fetches_more_until_the_top_is_certain():
    # 10 pieces of chunk a outrank everything; then b, c. A first fetch of limit×4 sees only a.
    pieces = [("a", 0.9 - i * 0.001) for i in range(10)] + [("b", 0.5), ("c", 0.5), ("d", 0.1)]
    asked = []

    def fetch(n):
        asked.append(n)
        return pieces[:n]

    assert best_per_chunk(fetch, 2) == [("a", 0.9), ("b", 0.5)]
    assert asked == [8, 16]
    assert best_per_chunk(fetch, 0) == []


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(0, 2**31 - 1), st.sampled_from([2, 5, 100]))
def test_the_readers_array_ranking_is_the_generic_one(limit, seed, levels):
    """best_chunks (the in-memory reader's) against best_per_chunk over the same pieces: few score
    levels make ties, across chunks and at the fetch's edge."""
    from corpus.vectors.vector_store_memory import best_chunks, top_rows

    rng = np.random.default_rng(seed)
    pieces = int(rng.integers(0, 80))
    scores = (rng.integers(0, levels, pieces) / levels).astype(np.float32)
    chunk_index = rng.integers(0, max(1, pieces // 3), pieces)
    chunks = np.array([f"chunk-{i:04d}" for i in rng.permutation(max(1, pieces // 3))])

    def fetch(n):
        return [(str(chunks[chunk_index[i]]), float(scores[i])) for i in top_rows(scores, n)]

    assert best_chunks(scores, chunk_index, chunks, limit) == best_per_chunk(fetch, limit)


def test_point_ids_are_deterministic_and_distinct():
    assert point_id(cid(1), 0) == point_id(cid(1), 0)
    assert len({point_id(cid(i), p) for i in range(50) for p in range(3)}) == 150


def test_inventory_pages_through_scrolls(store_factory, monkeypatch):
    import corpus.vectors.vector_store_client as client_module
    import corpus.vectors.vector_store_edge as edge_module

    for module in (client_module, edge_module):
        monkeypatch.setattr(module, "SCROLL_PAGE", 7)
    points = random_points(20)
    store = store_factory()
    store.upsert(points)
    assert store.chunk_ids() == {p.chunk_id for p in points}


def test_hnsw_generation_is_read_in_place_by_many_readers_and_switching_index_rebuilds(tmp_path):
    from corpus.state.generations import current_generation
    from corpus.vectors.vector_store import edge_root
    from corpus.vectors.vector_store_memory import SNAPSHOT_FILE, top_rows

    layout, points = StateLayout(tmp_path), random_points(30)
    exact, hnsw = ServedConfig(), ServedConfig(vector_index="hnsw")
    writer = open_vector_store(layout, exact, DIM)
    writer.upsert(points)
    writer.set_meta({"documents": {"d": "x"}})
    writer.close()
    folder = current_generation(edge_root(layout, exact))
    assert (folder / SNAPSHOT_FILE).exists()
    writer = open_vector_store(layout, hnsw, DIM)  # another index: the shard starts afresh
    assert writer.index == "hnsw" and writer.count_points() == 0 and writer.get_meta() == {}
    writer.upsert(points)
    writer.close()
    assert not (folder / SNAPSHOT_FILE).exists()
    first, second = (open_vector_store(layout, exact, DIM, read_only=True) for _ in range(2))
    query = np.random.default_rng(5).standard_normal(DIM)
    assert first.approximate and first.count_points() == second.count_points() == len(points)
    assert [c for c, _ in first.search(query, 6, year_min=2003)] == brute_force(
        points, query, 6, lambda p: p.year is not None and p.year >= 2003
    )
    first.close(), second.close()
    scores = np.array([0.5, 0.9, 0.5, 0.9, 0.1, 0.5], dtype=np.float32)  # ties: index order, as a stable sort
    for n in range(1, 8):
        assert top_rows(scores, n).tolist() == np.argsort(-scores, kind="stable")[:n].tolist()


def test_a_large_hnsw_index_searches_with_the_wider_beam(tmp_path, monkeypatch):
    """The beam and int8 oversampling follow the index's size at the first search: the narrow
    settings below LARGE_HNSW_POINTS, the wide ones from it (recall@10 ≥ 0.98 at 1.7 M points)."""
    from corpus.vectors.vector_store_base import (
        HNSW_EF,
        INT8_OVERSAMPLING,
        LARGE_HNSW_EF,
        LARGE_HNSW_POINTS,
        LARGE_INT8_OVERSAMPLING,
    )
    from corpus.vectors.vector_store_edge import EdgeVectorStore

    points = random_points(30)
    writer = EdgeVectorStore(tmp_path / "hnsw", DIM, index="hnsw")
    writer.upsert(points)
    writer.close()
    query = np.random.default_rng(4).standard_normal(DIM)
    small = EdgeVectorStore(tmp_path / "hnsw", DIM, read_only=True)
    assert [c for c, _ in small.search(query, 8)] == brute_force(points, query, 8)
    assert small.search_settings == (HNSW_EF, INT8_OVERSAMPLING)
    small.close()
    monkeypatch.setattr(EdgeVectorStore, "count_points", lambda self: LARGE_HNSW_POINTS)
    large = EdgeVectorStore(tmp_path / "hnsw", DIM, read_only=True)
    assert [c for c, _ in large.search(query, 8)] == brute_force(points, query, 8)
    assert large.search_settings == (LARGE_HNSW_EF, LARGE_INT8_OVERSAMPLING)
    assert (LARGE_HNSW_EF, LARGE_INT8_OVERSAMPLING) > (HNSW_EF, INT8_OVERSAMPLING)
    large.close()


def test_an_hnsw_shard_keeps_codes_and_graph_in_memory_and_vectors_and_payload_on_disk(tmp_path):
    """Qdrant's memory tiers as vector_store_base.HNSW_MEMORY declares them, read back from the
    shard's own config; the exact index (every state below the large size) declares none."""
    from corpus.state.layout import read_json
    from corpus.vectors.vector_store_base import HNSW_MEMORY
    from corpus.vectors.vector_store_edge import SHARD_DIR, EdgeVectorStore

    for index in ("hnsw", "exact"):
        store = EdgeVectorStore(tmp_path / index, DIM, index=index)
        store.upsert(random_points(20))
        store.close()
    config = read_json(tmp_path / "hnsw" / SHARD_DIR / "edge_config.json")
    assert config["vectors"][""]["memory"] == HNSW_MEMORY["vectors"] == "cold"
    assert config["quantization_config"]["scalar"]["memory"] == HNSW_MEMORY["quantized"] == "pinned"
    assert config["hnsw_config"]["memory"] == HNSW_MEMORY["graph"] == "pinned"
    assert config["payload_memory"] == HNSW_MEMORY["payload"] == "cold"
    exact = read_json(tmp_path / "exact" / SHARD_DIR / "edge_config.json")
    assert "memory" not in exact["vectors"][""] and exact.get("payload_memory") is None
