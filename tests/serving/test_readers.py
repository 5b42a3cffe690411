"""In-memory readers of the served vector index: the same top-50 as Qdrant Edge's exact search on
a real state (with and without filters; at the library's size: benchmarks/vector_readers.py),
loaded from the writer's snapshot or, without one, from a private copy; loading never needs the
shard's lock, so readers and a writer coexist."""

from __future__ import annotations

import numpy as np
import pytest

from corpus.config import ServedConfig
from corpus.encoding.embedder import load_embedder
from corpus.reading.reader import CorpusReader
from corpus.state.generations import begin_generation, current_generation, promote_generation
from corpus.state.layout import StateLayout, atomic_write_json, read_json
from corpus.vectors.vector_store import VectorStoreError, edge_root, open_vector_store
from corpus.vectors.vector_store_edge import META_FILE, EdgeVectorStore
from corpus.vectors.vector_store_memory import SNAPSHOT_FILE, MemoryVectorStore

QUERIES = [
    "value at risk of a portfolio",
    "kurtosis and fat tails",
    "standard deviation",
    "conditional expectation of losses beyond a quantile",
    "mean absolute deviation",
]
DEPTH = 50


def _setup(home):
    layout, config = StateLayout(home), ServedConfig()
    embedder = load_embedder(config)
    folder = current_generation(edge_root(layout, config))
    return layout, config, embedder, folder


def _scopes(layout):
    """No filter, year bounds on each side (undated excluded), one document, document + year."""
    documents = CorpusReader.open(layout).documents
    dated = sorted((e.year, d) for d, e in documents.items() if e.year is not None)
    undated = [d for d, e in documents.items() if e.year is None]
    assert len(dated) == 2 and undated, "the fixture dates two documents and leaves one undated"
    return [
        {},
        {"year_min": 2016},
        {"year_max": 2015},
        {"document_ids": [dated[0][1]]},
        {"document_ids": [undated[0]]},
        {"document_ids": [d for _, d in dated] + undated, "year_min": 2010},
    ]


def _assert_same(edge, memory, vector, scope):
    want = edge.search(vector, DEPTH, **scope)
    got = memory.search(vector, DEPTH, **scope)
    assert [c for c, _ in got] == [c for c, _ in want], scope
    np.testing.assert_allclose([s for _, s in got], [s for _, s in want], atol=1e-5)
    return want


def test_memory_reader_top50_equals_edge_exact_search(served_copy):
    layout, config, embedder, folder = _setup(served_copy)
    edge = EdgeVectorStore(folder, embedder.dimension)  # writable: holds the shard's lock meanwhile
    try:
        readers = [open_vector_store(layout, config, embedder.dimension, read_only=True) for _ in range(3)]
        assert all(isinstance(r, MemoryVectorStore) for r in readers)
        memory = readers[0]
        assert memory.count_points() == edge.count_points() > 0
        assert memory.chunk_ids() == edge.chunk_ids() and memory.document_ids() == edge.document_ids()
        assert memory.get_meta() == edge.get_meta()
        stored = np.random.default_rng(5).standard_normal((3, embedder.dimension)).astype(np.float32)
        vectors = [embedder.embed_query(q) for q in QUERIES] + list(stored)
        sizes = set()
        for scope in _scopes(layout):
            for vector in vectors:
                sizes.add(len(_assert_same(edge, memory, vector, scope)))
        # The whole ranking unfiltered (the fixture has fewer than DEPTH chunks), shorter filtered ones.
        assert max(sizes) == min(DEPTH, len(memory.chunk_ids())) and min(sizes) > 0 and len(sizes) > 2
    finally:
        edge.close()


def test_without_a_valid_snapshot_the_reader_reads_a_private_copy(served_copy):
    layout, config, embedder, folder = _setup(served_copy)
    snapshot = folder / SNAPSHOT_FILE
    assert snapshot.exists(), "the writer's close leaves a snapshot"
    vector = embedder.embed_query(QUERIES[0])
    from_snapshot = open_vector_store(layout, config, embedder.dimension, read_only=True).search(vector, DEPTH)
    snapshot.unlink()
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    reader = open_vector_store(layout, config, embedder.dimension, read_only=True)
    assert reader.search(vector, DEPTH) == from_snapshot
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before  # a reader writes nothing
    # A snapshot whose stamp no longer matches the meta is not trusted.
    edge = EdgeVectorStore(folder, embedder.dimension)
    edge.close()  # rewrites the snapshot for the current meta
    meta = read_json(folder / META_FILE)
    atomic_write_json(folder / META_FILE, {**meta, "signature": "changed"})
    reader = open_vector_store(layout, config, embedder.dimension, read_only=True)
    assert reader.get_meta()["signature"] == "changed" and reader.search(vector, DEPTH) == from_snapshot


def test_a_write_drops_the_snapshot_and_close_writes_the_new_one(served_copy):
    layout, config, embedder, folder = _setup(served_copy)
    root = edge_root(layout, config)
    old_reader = open_vector_store(layout, config, embedder.dimension, read_only=True)
    gone = sorted(old_reader.document_ids())[0]
    generation = begin_generation(root)
    store = open_vector_store(layout, config, embedder.dimension, generation=generation)
    store.delete_document(gone)
    assert not (generation / SNAPSHOT_FILE).exists()  # stale the moment anything changes
    store.close()
    assert (generation / SNAPSHOT_FILE).exists()
    assert gone in open_vector_store(layout, config, embedder.dimension, read_only=True).document_ids()
    promote_generation(root, generation)
    new_reader = open_vector_store(layout, config, embedder.dimension, read_only=True)
    assert gone not in new_reader.document_ids() and gone in old_reader.document_ids()
    assert new_reader.count_points() < old_reader.count_points()


def test_reader_refuses_writes_and_a_wrong_dimension(served_copy):
    layout, config, embedder, _ = _setup(served_copy)
    reader = open_vector_store(layout, config, embedder.dimension, read_only=True)
    for write in (
        lambda: reader.upsert([]),
        lambda: reader.delete_document("doc-0000000000000000"),
        lambda: reader.set_meta({}),
    ):
        with pytest.raises(VectorStoreError, match="read-only"):
            write()
    with pytest.raises(VectorStoreError, match="rebuild"):
        open_vector_store(layout, config, embedder.dimension * 2, read_only=True)
