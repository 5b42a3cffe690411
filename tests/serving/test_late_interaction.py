"""Late interaction on the served state: the token graph gives the stored vectors, ingestion's
embedding pass fills the token cache, and hybrid search orders its pool by MaxSim."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from corpus.config import ServedConfig
from corpus.encoding.embedder import load_embedder, model_folder
from corpus.encoding.onnx_encoder import OnnxEncoder, passage_file
from corpus.encoding.token_encoder import load_token_encoder
from corpus.indexes.token_index import TokenIndex
from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout
from ingest.indexes.embed import passage_texts
from serving.retrieval.engine import Engine
from serving.retrieval.scope import Scope

QUESTIONS = (
    "How is conditional value at risk estimated from historical returns?",
    "What does kurtosis measure about a distribution's tails?",
    "Why is the standard deviation preferred to the mean absolute deviation?",
)


def _pieces(layout: StateLayout):
    reader = CorpusReader.open(layout)
    embedder = load_embedder(ServedConfig())
    return passage_texts(embedder, ((reader.title(p.document_id), p) for p in reader.passages.values()))


def test_the_token_graph_gives_the_plain_graph_vectors(served_home):
    layout, config = StateLayout(served_home), ServedConfig()
    tokens = load_token_encoder(layout, config, model_folder(config), None)
    plain = OnnxEncoder(passage_file(layout, config), model_folder(config), config.embedding_model, None)
    _, texts = _pieces(layout)
    cosines = (tokens.embed_texts(texts[:40]) * plain.embed_texts(texts[:40])).sum(axis=1)
    assert cosines.min() >= 0.999999, cosines.min()
    vector, question = tokens.query(QUESTIONS[0])
    assert float(vector @ plain.embed_query(QUESTIONS[0])) >= 0.999999
    assert len(question) == len(tokens.tokenizer.encode(QUESTIONS[0]).ids) - 2  # [CLS] and [SEP] dropped
    assert np.allclose(np.linalg.norm(question, axis=1), 1.0, atol=1e-5)


def test_ingestion_cached_every_piece_tokens_so_the_index_computed_none(served_copy):
    """The fixture embedded through ingest_runtime and then built the index: rebuilt from the
    cache alone, it holds the same rows (none sent to the model again)."""
    from ingest.indexes.token_index import build_token_index

    layout, config = StateLayout(served_copy), ServedConfig()
    before = TokenIndex.for_state(layout, config.weights_key, _signature(layout))
    assert before is not None
    rows = {c: before.rows(c) for c in list(before.spans)[:10]}
    shutil.rmtree(layout.token_indexes)
    stats = build_token_index(layout, config)
    assert stats["rebuilt"] == 1 and stats["computed_pieces"] == 0
    after = TokenIndex.for_state(layout, config.weights_key, _signature(layout))
    owners, _ = _pieces(layout)
    assert set(after.spans) == {p.chunk_id for p, _ in owners}
    for chunk_id, matrix in rows.items():
        assert np.array_equal(after.rows(chunk_id), matrix)


def test_an_index_written_before_the_integer_product_gets_it_without_a_rebuild(served_copy):
    from corpus.indexes.token_product import GRAPH_FILE
    from ingest.indexes.token_index import build_token_index

    layout, config = StateLayout(served_copy), ServedConfig()
    index = TokenIndex.for_state(layout, config.weights_key, _signature(layout))
    (index.path / GRAPH_FILE).unlink()
    tokens_written = (index.path / "tokens.npy").stat().st_mtime_ns
    stats = build_token_index(layout, config)
    assert stats["rebuilt"] == 0 and (index.path / GRAPH_FILE).exists()
    assert (index.path / "tokens.npy").stat().st_mtime_ns == tokens_written  # rows untouched
    assert TokenIndex.for_state(layout, config.weights_key, _signature(layout)).product is not None
    index, _ = Engine(layout, config, signature=_signature(layout)).parts.tokens
    assert index.product._session is not None  # opened with the index (warm-up), not by the first search


def _signature(layout: StateLayout) -> str:
    from corpus.state.signature import recorded_signature

    return recorded_signature(layout)


@pytest.mark.parametrize("question", QUESTIONS)
def test_hybrid_orders_its_pool_by_maxsim_of_float_token_vectors(served_home, question):
    """The engine's order against MaxSim recomputed here from the token graph's float vectors of
    every pool passage's pieces (not from the index): equal except where int8 rounding may swap
    two passages whose float scores are within 0.01."""
    layout, config = StateLayout(served_home), ServedConfig()
    engine = Engine(layout, config, signature=_signature(layout))
    found = engine.retrieve(question, "hybrid", Scope(), limit=10)
    assert found.late_interaction and len(found.hits) == 10
    plain = Engine(layout, config.model_copy(update={"late_interaction": False}), signature=engine.parts.signature)
    assert plain.retrieve(question, "hybrid", Scope(), limit=10).late_interaction is False
    encoder = load_token_encoder(layout, config, model_folder(config), None)
    _, question_tokens = encoder.query(question)
    owners, texts = _pieces(layout)
    wanted = {h.chunk_id for h in found.hits}
    rows: dict[str, list[np.ndarray]] = {}
    for (passage, _), matrix in zip(owners, encoder.passage_tokens(texts)):
        if passage.chunk_id in wanted:
            rows.setdefault(passage.chunk_id, []).append(matrix)
    exact = {c: float((np.concatenate(m) @ question_tokens.T).max(axis=0).mean()) for c, m in rows.items()}
    served = [h.chunk_id for h in found.hits]
    for a, b in zip(served, served[1:]):
        assert exact[a] >= exact[b] - 0.01, (a, b, exact[a], exact[b])
    assert all(abs(h.score - exact[h.chunk_id]) < 0.01 for h in found.hits)  # each hit carries its MaxSim


def test_without_a_token_index_hybrid_keeps_the_fused_order(served_copy, caplog):
    layout, config = StateLayout(served_copy), ServedConfig()
    shutil.rmtree(layout.token_indexes)
    engine = Engine(layout, config, signature=_signature(layout))
    plain = Engine(layout, config.model_copy(update={"late_interaction": False}), signature=engine.parts.signature)
    for question in QUESTIONS:
        found = engine.retrieve(question, "hybrid", Scope(), limit=10)
        assert not found.late_interaction
        assert found.hits == plain.retrieve(question, "hybrid", Scope(), limit=10).hits
    assert "no token index" in caplog.text


def test_a_large_state_gets_no_token_index_and_is_served_in_fused_order(served_copy, monkeypatch):
    """From LARGE_STATE_PASSAGES on (≈ 120 KB of token rows per passage) no index is written."""
    import ingest.indexes.token_index
    from ingest.indexes.token_index import build_token_index

    layout, config = StateLayout(served_copy), ServedConfig()
    shutil.rmtree(layout.token_indexes)
    monkeypatch.setattr(ingest.indexes.token_index, "LARGE_STATE_PASSAGES", 5)
    stats = build_token_index(layout, config)
    assert stats["rebuilt"] == 0 and "no token index" in stats["reason"] and stats["passages"] >= 5
    assert TokenIndex.for_state(layout, config.weights_key, _signature(layout)) is None
    engine = Engine(layout, config, signature=_signature(layout))
    assert not engine.retrieve(QUESTIONS[0], "hybrid", Scope(), limit=5).late_interaction


def test_the_late_interaction_weight_runs_from_the_fused_order_to_maxsim_alone(served_home):
    """w 0 keeps the fused order (MaxSim still computed), w 1 is MaxSim alone, and a blend's
    scores are convex combinations of two min-max normalised scores (within [0, 1])."""
    layout, config = StateLayout(served_home), ServedConfig()
    signature = _signature(layout)

    def hits(**update):
        engine = Engine(layout, config.model_copy(update=update), signature=signature)
        return [engine.retrieve(q, "hybrid", Scope(), limit=10) for q in QUESTIONS]

    fused, zero = hits(late_interaction=False), hits(late_interaction_weight=0.0)
    assert all(z.late_interaction for z in zero)
    assert [[h.chunk_id for h in f.hits] for f in fused] == [[h.chunk_id for h in z.hits] for z in zero]
    assert [f.hits for f in hits()] == [f.hits for f in hits(late_interaction_weight=1.0)]
    blended = hits(late_interaction_weight=0.5)
    assert all(0.0 <= h.score <= 1.0 for b in blended for h in b.hits)
    assert [[h.chunk_id for h in b.hits] for b in blended] != [[h.chunk_id for h in f.hits] for f in fused]
