"""The engine's fast paths give the plain paths' answers: hybrid retrieval over a large corpus runs
the dense half in a worker thread while BM25 scores (the threshold is lowered so the small fixture
takes it), and a years-only scope filters vectors by year range instead of by document ids."""

from __future__ import annotations

import threading

import serving.retrieval.first_stage as first_stage
from corpus.config import ServedConfig
from corpus.reading.published import open_published
from corpus.state.layout import StateLayout
from serving.coherence import check_state
from serving.retrieval.engine import Engine
from serving.retrieval.first_stage import dense
from serving.retrieval.scope import Scope

QUESTIONS = (
    "How is value at risk estimated from historical returns?",
    "pairs trading cointegration",
    "GARCH(1,1) volatility forecast",
)


def test_overlapped_hybrid_retrieval_equals_the_sequential_one(ingested_home, monkeypatch):
    published = open_published(StateLayout(ingested_home))
    try:
        config = ServedConfig()
        engine = Engine(published.layout, config, signature=check_state(published.layout, config).signature)
        scopes = (Scope(), Scope(year_min=2010))
        sequential = [engine.retrieve(q, "hybrid", s, limit=10) for q in QUESTIONS for s in scopes]
        assert engine.parts.is_open("bm25") and engine.parts.bm25.doc_count < first_stage.LARGE_STATE_PASSAGES
        assert not any(t.name.startswith("engine-dense") for t in threading.enumerate())
        monkeypatch.setattr(first_stage, "LARGE_STATE_PASSAGES", 0)
        overlapped = [engine.retrieve(q, "hybrid", s, limit=10) for q in QUESTIONS for s in scopes]
        assert any(t.name.startswith("engine-dense") for t in threading.enumerate())
        assert overlapped == sequential and all(r.hits for r in sequential)
        engine.close()
    finally:
        published.close()


def test_a_years_only_scope_searches_vectors_by_year_range_with_the_same_answers(ingested_home):
    """The vector store's year range and the scope's document ids select the same points."""
    published = open_published(StateLayout(ingested_home))
    try:
        config = ServedConfig()
        engine = Engine(published.layout, config, signature=check_state(published.layout, config).signature)
        years = sorted({e.year for e in engine.parts.reader.documents.values() if e.year is not None})
        calls = []
        search = engine.parts.vectors.search
        engine.parts.vectors.search = lambda *a, **k: calls.append(k) or search(*a, **k)
        for scope in (
            Scope(year_min=years[len(years) // 2]),
            Scope(year_max=years[len(years) // 2]),
            Scope(year_min=years[0], year_max=years[-1]),
        ):
            allowed = engine.catalogue.documents_in_scope(scope)
            by_range = dense(engine.parts, QUESTIONS[0], 20, allowed, scope)
            assert "year_min" in calls[-1] and "document_ids" not in calls[-1]
            by_ids = dense(engine.parts, QUESTIONS[0], 20, allowed)
            assert calls[-1]["document_ids"] == sorted(allowed)
            assert by_range == by_ids and by_range, scope
        dense(engine.parts, QUESTIONS[0], 20, allowed, Scope(year_min=years[0], authors=("a",)))
        assert "document_ids" in calls[-1]  # any other filter: the ids
        engine.close()
    finally:
        published.close()
