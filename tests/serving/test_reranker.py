"""The cross-encoder path (`QUANT_RAG_RERANKER_PATH`). No cross-encoder ships offline, so the
packaged MiniLM folder is loaded as one: sentence-transformers gives it an untrained one-logit
head, so its scores mean nothing, but every step of the path runs for real (loading the folder,
pairing the question with each fused candidate, rescoring, ordering, and saying so)."""

from __future__ import annotations

from corpus.config import ServedConfig
from corpus.encoding.embedder import model_folder
from corpus.reading.published import open_published
from corpus.state.layout import StateLayout
from serving.coherence import check_state
from serving.retrieval.engine import Engine
from serving.retrieval.reranking import passage_text
from serving.retrieval.scope import Scope

QUESTION = "How is value at risk estimated from historical returns?"


def test_hybrid_search_is_reordered_by_the_configured_cross_encoder(ingested_home):
    published = open_published(StateLayout(ingested_home))
    try:
        layout = published.layout
        plain_config = ServedConfig()
        config = plain_config.model_copy(update={"reranker_model_path": str(model_folder(plain_config))})
        signature = check_state(layout, plain_config).signature
        plain = Engine(layout, plain_config, signature=signature)
        engine = Engine(layout, config, signature=signature)
        assert plain.parts.reranker_name == "none" and engine.parts.reranker_name == model_folder(plain_config).name
        before = plain.retrieve(QUESTION, "hybrid", Scope(), limit=5)
        after = engine.retrieve(QUESTION, "hybrid", Scope(), limit=5)
        assert after.reranked and not before.reranked
        assert not engine.retrieve(QUESTION, "bm25", Scope(), limit=5).reranked  # hybrid only
        # the served order is the cross-encoder's own scores over the fused pool, best first; it
        # reads each passage under its title and section path (serving.retrieval.reranking.passage_text)
        model = engine.parts.reranker
        passages = engine.parts.reader.passages
        for hit in after.hits:
            p = passages[hit.chunk_id]
            (expected,) = model.predict(
                [(QUESTION, passage_text(engine.parts.reader.title(p.document_id), p.section, p.text))]
            )
            assert abs(float(expected) - hit.score) < 1e-4
        assert [h.score for h in after.hits] == sorted((h.score for h in after.hits), reverse=True)
        assert {h.chunk_id for h in after.hits} <= set(passages)
        plain.close()
        engine.close()
    finally:
        published.close()
