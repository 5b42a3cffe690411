"""Every corpus-wide check fails on a deliberately inconsistent state (and passes before)."""

from __future__ import annotations

import io
import json

import numpy as np

from corpus.config import ServedConfig
from corpus.encoding.embedder import load_embedder
from corpus.state.layout import StateLayout, atomic_write_bytes, atomic_write_json, atomic_write_jsonl, read_json
from corpus.vectors.vector_store import open_vector_store
from ingest.passages.integrity import anchor_mismatches, load_passages
from ingest.publication.checks import brute_force_agreement, index_counts, index_signatures
from ingest.sources.register import load_source
from orchestration.runner import instance_for, refresh_corpus_outcome


def _first_document(layout: StateLayout) -> str:
    return layout.registered_document_ids()[0]


def test_checks_pass_on_the_ingested_state(ingested_home):
    layout, config = StateLayout(ingested_home), ServedConfig.from_env()
    counts = index_counts(layout, config)
    assert len(set(counts.values())) == 1
    signatures = index_signatures(layout, config)
    assert len(set(signatures.values())) == 1 and signatures["passage_store"] is not None
    agreement = brute_force_agreement(layout, config)
    assert agreement["disagreements"] == 0 and agreement["recall_at_10"] == 1.0
    assert anchor_mismatches(layout, layout.registered_document_ids()) == []


def test_anchor_check_fails_when_a_passage_text_drifts(state_copy):
    layout = StateLayout(state_copy)
    document_id = _first_document(layout)
    rows = load_passages(layout, document_id)
    rows[0] = rows[0].model_copy(update={"text": rows[0].text + " (edited)"})
    atomic_write_jsonl(layout.passages(document_id), [p.model_dump(mode="json") for p in rows])
    assert anchor_mismatches(layout, [document_id]) == [rows[0].chunk_id]


def test_count_check_fails_when_vectors_are_missing(state_copy):
    layout, config = StateLayout(state_copy), ServedConfig.from_env()
    store = open_vector_store(layout, config, load_embedder(config).dimension)
    try:
        store.delete_document(_first_document(layout))
    finally:
        store.close()
    counts = index_counts(layout, config)
    assert counts["vector_chunks"] < counts["passages"] == counts["bm25_documents"]


def test_signature_check_fails_when_an_index_is_stale(state_copy):
    from corpus.state.generations import current_generation
    from corpus.vectors.vector_store import edge_root
    from corpus.vectors.vector_store_edge import META_FILE

    layout, config = StateLayout(state_copy), ServedConfig.from_env()
    meta_path = current_generation(edge_root(layout, config)) / META_FILE
    atomic_write_json(meta_path, {**read_json(meta_path), "signature": "000000000000"})
    signatures = index_signatures(layout, config)
    assert signatures["vector_index"] == "000000000000" != signatures["live"]


def test_brute_force_check_fails_when_stored_vectors_differ(state_copy):
    layout, config = StateLayout(state_copy), ServedConfig.from_env()
    for document_id in layout.registered_document_ids():
        path = layout.embeddings(document_id, config.model_key)
        with np.load(path) as data:
            arrays = {k: data[k] for k in data.files}
        rng = np.random.default_rng(1)
        noisy = arrays["vectors"] + rng.normal(0, 0.3, arrays["vectors"].shape).astype(np.float32)
        arrays["vectors"] = noisy / np.linalg.norm(noisy, axis=1, keepdims=True)
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        atomic_write_bytes(path, buffer.getvalue())
    agreement = brute_force_agreement(layout, config)
    assert agreement["disagreements"] > 0 and agreement["recall_at_10"] < 0.98  # fails the hnsw floor too


def _drop_title(layout: StateLayout) -> str:
    """Remove the first document's title (its metadata and the titles overlay); returns its file name."""
    document_id = _first_document(layout)
    meta = read_json(layout.metadata(document_id))
    meta["title"] = {"value": None, "provenance": "none"}
    atomic_write_json(layout.metadata(document_id), meta)
    (layout.overlays / "titles.json").unlink()
    return load_source(layout, document_id)[0].original_name


def test_metadata_coverage_warns_without_a_title_and_names_the_document(state_copy):
    """A document without a title is still served: the check warns (WARN severity), it does not fail."""
    layout = StateLayout(state_copy)
    name = _drop_title(layout)
    outcome = refresh_corpus_outcome(layout, instance_for(layout))
    assert outcome.checks["catalogue:metadata_coverage"] is True
    assert all(outcome.checks.values()), outcome.checks
    documents = len(layout.registered_document_ids())
    assert outcome.warnings == {"catalogue:metadata_coverage": f"of {documents} documents, 1 without a title: {name}"}


def test_ingest_exits_0_and_its_summary_names_the_untitled_document(state_copy, monkeypatch, capsys):
    from orchestration import console
    from orchestration.cli import ingest as ingest_command

    layout = StateLayout(state_copy)
    name = _drop_title(layout)
    monkeypatch.setenv("QUANT_RAG_HOME", str(state_copy))
    monkeypatch.setattr(console.CONSOLE, "echo", None)  # use_terminal sets them; restored after the test
    monkeypatch.setattr(console.CONSOLE, "verbose", False)
    known = next(layout.sources.glob("doc-*"))  # bytes already registered: nothing new to ingest
    assert ingest_command(["--json", str(known)]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["checks_failed"] == [] and report["already_known"] == 1
    assert name in report["check_warnings"]["catalogue:metadata_coverage"]
    warning = f"of {report['documents']} documents, 1 without a title: {name}"
    assert f"check warning catalogue:metadata_coverage: {warning}" in err
    assert "checks FAILED" not in err


def test_a_swap_counts_only_between_passages_whose_scores_tie():
    from ingest.publication.checks import same_ranking

    score = {"a": 0.5313918, "b": 0.5313917, "c": 0.4}  # a and b: float32 rounding apart
    assert same_ranking(["a", "b", "c"], ["b", "a", "c"], score)
    assert not same_ranking(["a", "c"], ["c", "a"], score)
    assert not same_ranking(["a", "b"], ["a", "b", "c"], score)
