"""Hybrid retrieval over a large corpus runs the dense half in a worker thread while BM25 scores:
the answers are the sequential ones (the threshold is lowered so the small fixture takes it)."""

from __future__ import annotations

import threading

import serving.engine as engine_module
from corpus.config import ServedConfig
from corpus.published import open_published
from corpus.state import StateLayout
from serving.coherence import check_state
from serving.engine import Engine, Scope

QUESTIONS = ("How is value at risk estimated from historical returns?", "pairs trading cointegration",
             "GARCH(1,1) volatility forecast")


def test_overlapped_hybrid_retrieval_equals_the_sequential_one(ingested_home, monkeypatch):
    published = open_published(StateLayout(ingested_home))
    try:
        config = ServedConfig()
        engine = Engine(published.layout, config, signature=check_state(published.layout, config).signature)
        scopes = (Scope(), Scope(year_min=2010))
        sequential = [engine.retrieve(q, "hybrid", s, limit=10) for q in QUESTIONS for s in scopes]
        assert engine.is_open("bm25") and engine.bm25.doc_count < engine_module.OVERLAP_MIN_PASSAGES
        assert not any(t.name.startswith("engine-dense") for t in threading.enumerate())
        monkeypatch.setattr(engine_module, "OVERLAP_MIN_PASSAGES", 0)
        overlapped = [engine.retrieve(q, "hybrid", s, limit=10) for q in QUESTIONS for s in scopes]
        assert any(t.name.startswith("engine-dense") for t in threading.enumerate())
        assert overlapped == sequential and all(r.hits for r in sequential)
        engine.close()
    finally:
        published.close()
