"""A large embedding call runs in worker processes: the same vectors as in process, batch by batch,
and the workers' token rows land in the state's token cache."""

from __future__ import annotations

import numpy as np
import pytest

import corpus.encoding.embedding_pool as embedding_pool
from corpus.config import ServedConfig
from corpus.encoding.embedder import load_embedder
from corpus.encoding.embedding_pool import EmbeddingPool, pool_workers
from corpus.encoding.onnx_export import ingest_runtime
from corpus.encoding.token_cache import TokenCache
from corpus.ids import sha256_hex
from corpus.state.layout import StateLayout
from tests.ingest.test_bf16_passages import _texts


def test_workers_follow_the_cores():
    assert pool_workers(cores=1) == 0
    assert pool_workers(cores=2) == embedding_pool.EMBED_WORKERS
    assert pool_workers(cores=64) == embedding_pool.EMBED_WORKERS


@pytest.mark.parametrize("runtime", ["onnx", "torch-bf16"])
def test_a_large_call_gives_the_in_process_vectors_and_caches_tokens(state_copy, monkeypatch, runtime):
    layout, config = StateLayout(state_copy), ServedConfig(passage_runtime=runtime)
    embedder = load_embedder(config)
    texts = _texts(layout, embedder, 40)
    cache = TokenCache(layout, config.weights_key)
    for stale in cache.path.parent.glob(cache.path.name + "*"):
        stale.unlink()
    with ingest_runtime(embedder, layout, config):
        in_process = embedder.embed_passages(texts, batch_size=8)  # below POOL_MIN_PIECES
        assert isinstance(embedder.passage_pool, EmbeddingPool)
        assert not TokenCache(layout, config.weights_key).get_many([]) and embedder.passage_pool._executor is None
        monkeypatch.setattr(embedding_pool, "POOL_MIN_PIECES", len(texts))
        for stale in cache.path.parent.glob(cache.path.name + "*"):
            stale.unlink()
        pooled = embedder.embed_passages(texts, batch_size=8)
        assert embedder.passage_pool._executor is not None  # the workers ran it
    assert embedder.passage_pool is None  # closed with the block
    assert np.abs(pooled - in_process).max() <= 1e-6  # same batches, same vectors
    cached = TokenCache(layout, config.weights_key).get_many(texts)
    assert set(cached) == {sha256_hex(t) for t in texts}  # written by the workers


def test_a_failing_worker_raises_in_the_caller(state_copy, monkeypatch):
    layout, config = StateLayout(state_copy), ServedConfig(passage_runtime="onnx")
    pool = EmbeddingPool(layout, config, state_copy / "no-such-model", "onnx", workers=1)
    try:
        with pytest.raises(Exception):  # noqa: B017 — whatever the worker's start raised, it surfaces
            list(pool.map_batches([["a text"]]))
    finally:
        pool.close()
