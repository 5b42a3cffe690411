"""A run's documents are embedded together (length-sorted across documents, on ONNX Runtime) with
the vectors torch gives each document's pieces on their own, and within the measured floor of those
on the opt-in int8 graph; documents parse ahead in processes."""

from __future__ import annotations

import pytest

import ingest.indexes.embed as embed_module
from corpus.config import ServedConfig
from corpus.encoding.embedder import load_embedder
from corpus.encoding.embedding_cache import EmbeddingCache
from corpus.encoding.onnx_export import PassageRuntimeError, ingest_runtime
from corpus.models import ParsedDocument
from corpus.state.layout import StateLayout, read_json
from ingest.indexes.embed import document_pieces, embed_document, load_document_embeddings, prefill
from ingest.passages.parse import ParsePool

INT8_MIN_COSINE = 0.985  # int8 passages vs float32: measured min 0.991 (tests/serving/test_onnx_encoder.py)


def _smallest(layout: StateLayout, embedder, count: int) -> list[str]:
    sizes = {d: len(document_pieces(layout, embedder, d).texts) for d in layout.registered_document_ids()}
    return sorted(sizes, key=sizes.get)[:count]


def test_prefill_embeds_documents_together_with_equal_vectors(state_copy, tmp_path, monkeypatch):
    layout, config = StateLayout(state_copy), ServedConfig(passage_runtime="onnx")  # float32 graph
    embedder = load_embedder(config)
    documents = _smallest(layout, embedder, 2)
    calls = []
    real = embedder.embed_passages
    monkeypatch.setattr(embedder, "embed_passages", lambda texts, **kw: calls.append(len(texts)) or real(texts, **kw))

    monkeypatch.setattr(embed_module, "PREFILL_PIECES", 1)  # a pass stops once one string is pending
    _, covered = prefill(layout, embedder, EmbeddingCache(tmp_path / "small", config.model_key), documents)
    assert covered == documents[:1]

    monkeypatch.undo()
    monkeypatch.setattr(embedder, "embed_passages", lambda texts, **kw: calls.append(len(texts)) or real(texts, **kw))
    calls.clear()
    cache = EmbeddingCache(tmp_path / "cache", config.model_key)
    with ingest_runtime(embedder, layout, config) as runtime:  # what the pipeline embeds with
        assert runtime == "onnx" and embedder.passage_runtime is not None  # float32 on ONNX Runtime
        prepared, covered = prefill(layout, embedder, cache, documents)
    assert embedder.passage_runtime is None  # the shared embedder is torch again
    unique = {t for d in documents for t in prepared[d].texts}
    assert covered == documents and calls == [len(unique)]  # one pass over both documents
    assert sum(prepared[d].embedded_now for d in documents) == len(unique)
    before = embedder.encoded_texts
    for document_id in documents:
        total, fresh = embed_document(layout, config, embedder, cache, document_id, prepared[document_id])
        assert total == len(prepared[document_id].texts) and fresh == prepared[document_id].embedded_now
        _, _, stored = load_document_embeddings(layout, config, document_id)
        alone = embedder.model.encode(prepared[document_id].texts, normalize_embeddings=True)  # torch, bare
        assert (stored * alone).sum(axis=1).min() >= 0.9999
    assert embedder.encoded_texts == before  # the documents' vectors came from the pass, not the model again
    texts = prepared[documents[0]].texts
    with ingest_runtime(embedder, layout, ServedConfig(passage_runtime="onnx-int8")) as runtime:  # the opt-in
        assert runtime == "onnx-int8"
        int8 = embedder.embed_passages(texts)
    cosines = (int8 * embedder.model.encode(texts, normalize_embeddings=True)).sum(axis=1)
    assert INT8_MIN_COSINE <= cosines.min() < 0.9999, cosines.min()  # int8: close, not equal


def test_int8_passages_never_fall_back_to_torch_vectors(state_copy, monkeypatch):
    """int8 vectors are keyed as int8 (ServedConfig.model_key): a run that cannot make them fails."""
    import corpus.encoding.onnx_export as onnx_export

    layout, embedder = StateLayout(state_copy), load_embedder(ServedConfig())
    monkeypatch.setattr(onnx_export, "ensure_exported", lambda *args: None)  # a model ONNX does not cover
    with pytest.raises(PassageRuntimeError, match="unset QUANT_RAG_PASSAGE_RUNTIME"):
        with ingest_runtime(embedder, layout, ServedConfig(passage_runtime="onnx-int8")):
            pass
    with ingest_runtime(embedder, layout, ServedConfig(passage_runtime="onnx")) as runtime:
        assert runtime == "torch"  # float32: torch gives the same vectors
    assert embedder.passage_runtime is None
    monkeypatch.setattr(onnx_export, "pooling_of", lambda folder: None)
    with ingest_runtime(embedder, layout, ServedConfig(passage_runtime="torch-bf16")) as runtime:
        assert runtime == "torch"  # bfloat16 covers what the ONNX graphs cover: torch otherwise


def test_parse_pool_parses_in_workers_like_this_process(state_copy):
    layout = StateLayout(state_copy)
    documents = layout.registered_document_ids()[:2]
    stored = {d: read_json(layout.parsed_blocks(d)) for d in documents}
    with ParsePool(layout, documents, workers=2, minimum=1) as pool:
        assert pool._executor is not None  # really in worker processes
        parsed = {d: pool.result(d) for d in documents}
    for document_id in documents:
        assert parsed[document_id] == ParsedDocument(**stored[document_id])
    with ParsePool(layout, documents, workers=2, minimum=3) as pool:  # too few: no processes started
        assert pool._executor is None and pool.result(documents[0]) == ParsedDocument(**stored[documents[0]])


def test_a_dead_parse_worker_costs_only_its_own_document(state_copy):
    layout = StateLayout(state_copy)
    documents = layout.registered_document_ids()[:2]
    stored = ParsedDocument(**read_json(layout.parsed_blocks(documents[1])))
    with ParsePool(layout, documents, workers=2, minimum=1) as pool:
        for process in pool._executor._processes.values():  # as if pdfium had crashed a worker
            process.kill()
        assert pool.result(documents[1]) == stored  # parsed in this process instead
