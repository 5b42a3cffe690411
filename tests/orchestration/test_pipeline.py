"""The pipeline on a slice of the bundled library: counts, checks, removal, bad files."""

from __future__ import annotations

import duckdb
import numpy as np
import pypdf
from library_slice import EXTRA_DOCUMENT, SLICE, slice_files
from shared_state import copy_state

from corpus.config import ServedConfig
from corpus.encoding.embedder import load_embedder
from corpus.state.layout import StateLayout, atomic_write_jsonl, read_json, read_jsonl
from corpus.state.signature import compute_signature, recorded_signature
from ingest.passages.integrity import load_passages
from orchestration.runner import ingest, instance_for, refresh_corpus, remove


def test_slice_catalogue_counts_match_the_files(ingested_home):
    layout = StateLayout(ingested_home)
    ids = layout.registered_document_ids()
    assert len(ids) == len(SLICE)
    passages_on_disk = sum(len(read_jsonl(layout.passages(d))) for d in ids)
    with duckdb.connect(str(layout.catalogue), read_only=True) as connection:
        documents = connection.execute("select count(*) from documents").fetchone()[0]
        passages = connection.execute("select count(*) from passages").fetchone()[0]
        formats = dict(connection.execute("select format, count(*) from documents group by all").fetchall())
    assert documents == len(SLICE)
    assert passages == passages_on_disk > 0
    assert formats == {"pdf": 3, "markdown": 4}
    assert recorded_signature(layout) == compute_signature(layout)


def test_a_passage_broken_mid_formula_fails_the_cut_check(state_copy):
    layout = StateLayout(state_copy)
    for document_id in layout.registered_document_ids():
        canonical = layout.canonical_text(document_id).read_text(encoding="utf-8")
        rows = load_passages(layout, document_id)
        target = next((p for p in rows if p.granularity == "exact" and "$$" in p.text), None)
        if target is None:
            continue
        start = target.ranges[0][0]
        inside = canonical.index("$$", start) + 3  # just after an opening $$: inside the formula
        broken = target.model_copy(update={"ranges": [(start, inside)], "text": canonical[start:inside]})
        atomic_write_jsonl(
            layout.passages(document_id),
            [(broken if p.chunk_id == target.chunk_id else p).model_dump(mode="json") for p in rows],
        )
        break
    else:
        raise AssertionError("the slice has no passage with a display formula")
    checks = refresh_corpus(layout, instance_for(layout))
    assert checks["catalogue:passages_whole"] is False
    assert checks["catalogue:anchors_round_trip"] is True  # the broken passage is still a faithful substring


def test_adding_then_removing_a_document_is_incremental_and_symmetric(state_copy):
    layout = StateLayout(state_copy)
    config = ServedConfig.from_env()
    before = recorded_signature(layout)
    embedder = load_embedder(config)
    encoded_before = embedder.encoded_texts
    stored_before = _vector_fingerprints(layout, config)
    report = ingest(layout, slice_files([EXTRA_DOCUMENT]))
    assert len(report.registered) == 1 and report.signature != before
    assert all(report.checks.values()), report.checks
    # Only the new document's pieces reached the model; the others' vectors were left as they were.
    new_id = report.registered[0]
    with np.load(layout.embeddings(new_id, config.model_key)) as data:
        assert 0 < embedder.encoded_texts - encoded_before <= len(data["chunk_ids"])  # duplicates embed once
    stored_after = _vector_fingerprints(layout, config)
    assert {k: v for k, v in stored_after.items() if k != new_id} == stored_before
    after = remove(layout, report.registered[0])
    assert after == before
    assert len(layout.registered_document_ids()) == len(SLICE)


def _vector_fingerprints(layout: StateLayout, config: ServedConfig) -> dict[str, str]:
    from corpus.state.generations import current_generation
    from corpus.vectors.vector_store import edge_root
    from corpus.vectors.vector_store_edge import META_FILE

    return read_json(current_generation(edge_root(layout, config)) / META_FILE)["documents"]


def _encrypted_copy(source, target):
    reader = pypdf.PdfReader(str(source))
    writer = pypdf.PdfWriter()
    for page in reader.pages:
        writer.add_page(page)
    writer.encrypt("secret")
    with open(target, "wb") as handle:
        writer.write(handle)


def test_bad_files_are_set_aside_and_the_batch_goes_on(tmp_path):
    from ingest.sources.library import LIBRARY_ROOT

    batch = tmp_path / "batch"
    batch.mkdir()
    good_pdf = LIBRARY_ROOT / "pdf/schumann_asset_selection_local_search.pdf"
    (batch / "empty.pdf").write_bytes(b"")
    (batch / "truncated.pdf").write_bytes(good_pdf.read_bytes()[:20_000])
    (batch / "not_a_pdf.pdf").write_bytes(b"<html><body>hello</body></html>" * 20)
    _encrypted_copy(good_pdf, batch / "encrypted.pdf")
    (batch / "notes.docx").write_bytes(b"PK\x03\x04" + b"\x00" * 200)
    good_md = LIBRARY_ROOT / "markdown/quantopian_lecture06_means.md"
    files = [(p, None) for p in sorted(batch.iterdir())] + [(good_md, None)]
    layout = StateLayout(tmp_path / "state")
    report = ingest(layout, files)
    assert set(report.set_aside) == {"empty.pdf", "truncated.pdf", "not_a_pdf.pdf", "encrypted.pdf", "notes.docx"}
    assert all(len(reason) > 10 for reason in report.set_aside.values())
    assert len(report.registered) == 1 and report.documents == 1
    for name in report.set_aside:
        assert (layout.quarantine / f"{name}.reason.json").exists()
    assert all(report.checks.values()), report.checks


def test_the_catalogue_builds_under_a_state_path_with_quotes(ingested_home, tmp_path):
    from ingest.indexes.catalogue import build_catalogue

    target = tmp_path / 'it\'s a "state"'
    copy_state(ingested_home, target)
    counts = build_catalogue(StateLayout(target))  # the raw tables; dbt builds the models on them
    assert counts["raw_sources"] == len(SLICE) and counts["raw_passages"] > 0
