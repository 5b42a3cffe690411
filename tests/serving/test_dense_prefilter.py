"""The int8 prescore of the unfiltered dense scan (serving.retrieval.dense_prefilter) answers exactly what the
full scan answers: the same chunks, order and float scores, ties included; when it cannot be sure
the full scan answers; a BLAS whose gathered rows score differently disables it; the served
engine builds it in its warm-up and its searches equal the store's."""

from __future__ import annotations

import numpy as np
import pytest

from corpus.config import ServedConfig
from corpus.indexes.token_product import GRAPH_FILE, IntegerProduct, write_product_graph
from corpus.state.layout import StateLayout
from corpus.state.signature import recorded_signature
from corpus.vectors.vector_store_memory import MemoryVectorStore, PointRecord, to_arrays
from serving.retrieval import dense_prefilter
from serving.retrieval.dense_prefilter import DensePrefilter
from serving.retrieval.engine import Engine
from serving.retrieval.first_stage import dense
from serving.retrieval.scope import Scope

DIM = 64


def _store(rng: np.random.Generator, points: int, chunks: int) -> MemoryVectorStore:
    """Points of `chunks` passages (several pieces each), some of them exact duplicates (ties)."""
    vectors = rng.standard_normal((points, DIM)).astype(np.float32)
    vectors[points // 2 : points // 2 + 40] = vectors[:40]  # equal scores in different chunks
    records = [
        PointRecord(f"chunk-{i % chunks:05d}", f"doc-{i % 37}", i // chunks, 2000 + i % 20, list(map(float, v)))
        for i, v in enumerate(vectors)
    ]
    return MemoryVectorStore(to_arrays(records, DIM), DIM, {}, "edge", "test")


@pytest.fixture(scope="module")
def product(tmp_path_factory) -> IntegerProduct:
    path = tmp_path_factory.mktemp("product") / GRAPH_FILE
    write_product_graph(path)
    return IntegerProduct(path)


@pytest.mark.parametrize("points", [3001, 4096, 4107])  # the scan's last block partial or whole
def test_searches_equal_the_full_scan(product, points):
    rng = np.random.default_rng(points)
    store = _store(rng, points, chunks=900)
    prefilter = DensePrefilter.build(store, product)
    assert prefilter is not None
    queries = [store.vectors[i] + 0.05 * rng.standard_normal(DIM).astype(np.float32) for i in range(0, points, 97)]
    queries += [rng.standard_normal(DIM).astype(np.float32) for _ in range(20)] + [store.vectors[3] * 2.5]
    for query in queries:
        for limit in (1, 5, 50):
            assert prefilter.search(query, limit) == store.search(query, limit)
    assert prefilter.fallbacks < len(queries)  # it answers by itself, mostly


def test_an_uncertain_cut_falls_back_to_the_full_scan(product, monkeypatch):
    rng = np.random.default_rng(5)
    store = _store(rng, 3000, chunks=300)
    prefilter = DensePrefilter.build(store, product)
    assert prefilter is not None
    monkeypatch.setattr(dense_prefilter, "PRODUCT_SLACK", -1.0)  # a bound that excludes the true top
    query = store.vectors[10]
    assert prefilter.search(query, 50) == store.search(query, 50)
    assert prefilter.fallbacks == 1


def test_a_blas_that_scores_gathered_rows_differently_disables_it(product, monkeypatch):
    store = _store(np.random.default_rng(9), 2000, chunks=400)
    exact = DensePrefilter._exact

    def off_by_a_bit(self, rows, query):
        scores = exact(self, rows, query)
        return np.nextafter(scores, np.float32(np.inf))

    monkeypatch.setattr(DensePrefilter, "_exact", off_by_a_bit)
    assert DensePrefilter.build(store, product) is None


def test_the_served_engine_builds_it_and_searches_as_the_store(served_home):
    layout = StateLayout(served_home)
    engine = Engine(layout, ServedConfig(), signature=recorded_signature(layout))
    engine.parts.warm_up()
    assert engine.parts.is_open("prefilter") and engine.parts.dense_prefilter
    prefilter = engine.parts.dense_prefilter[0]
    for question in ("variance of a portfolio", "How is value at risk estimated?", "fat tails and kurtosis"):
        vector = engine.parts.embedder.embed_query(question)
        for limit in (3, 10):  # the small state has fewer points than a pool of 50 prescores
            assert prefilter.search(vector, limit) == engine.parts.vectors.search(vector, limit)
        served = dense(engine.parts, question, 10, None, Scope(), vector)
        assert [(c.chunk_id, c.score) for c in served] == engine.parts.vectors.search(vector, 10)
