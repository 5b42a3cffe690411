"""The BEIR parser and the stage hooks: each record one exact passage with its text as written, a
group's records one document, titles kept verbatim, no record folded into a twin."""

from __future__ import annotations

import json

from corpus.ids import document_id_for_bytes
from corpus.models import DocumentMetadata
from corpus.state.layout import StateLayout, read_json
from ingest.parsing.beir import (
    beir_passages,
    corpus_documents,
    document_source,
    parse_beir,
    read_corpus,
    source_records,
)
from ingest.passages.chunk import chunk_stored_document
from ingest.passages.integrity import anchor_mismatches, forbidden_cuts, load_passages
from ingest.passages.metadata import extract_stored_metadata
from ingest.passages.overlays import near_duplicates, write_overlays
from ingest.passages.parse import parse_document
from ingest.publication.benchmark import chunk_ids, register_corpus

TWIN = " ".join(f"word{i}" for i in range(40))  # a text long enough to be a near-duplicate candidate
ROWS = [
    {"_id": "a", "title": "A study.", "text": "Alpha\x96 text, as written.  "},
    {"_id": "t1", "title": "", "text": "| x | y |\n|---|---|\n| 1 | 2 |", "metadata": {"context_id": "c"}},
    {"_id": "t2", "title": "", "text": TWIN, "metadata": {"context_id": "c"}},
    {"_id": "b", "text": TWIN},
]


def _corpus(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return read_corpus(path)


def test_records_become_documents_with_one_exact_passage_each(tmp_path):
    corpus = _corpus(tmp_path)
    assert corpus["t1"]["group"] == "c" and corpus["b"] == {"title": "", "text": TWIN}
    documents = corpus_documents(corpus)
    assert [[i for i, _ in d] for d in documents] == [["a"], ["t1", "t2"], ["b"]]
    grouped = document_source(documents[1])
    assert source_records(grouped) == documents[1]
    text, blocks = parse_beir(grouped)
    assert text == ROWS[1]["text"] + "\n\n" + TWIN and len(blocks) == 2
    passages = beir_passages(document_id_for_bytes(grouped), text, grouped)
    assert [p.text for p in passages] == [ROWS[1]["text"], TWIN] and [p.ordinal for p in passages] == [0, 1]
    assert all(p.granularity == "exact" and text[slice(*p.ranges[0])] == p.text for p in passages)
    # a single record keeps its text as written (control characters and trailing spaces included)
    alone = document_source(documents[0])
    assert parse_beir(alone)[0] == ROWS[0]["text"]


def test_the_stages_store_the_records_as_judged(tmp_path):
    layout = StateLayout(tmp_path / "home").ensure()
    corpus = _corpus(tmp_path)
    registered = register_corpus(layout, "tiny", corpus)
    assert all(r.new for r in registered) and not any(r.new for r in register_corpus(layout, "tiny", corpus))
    for document_id in layout.registered_document_ids():
        parse_document(layout, document_id)
        chunk_stored_document(layout, document_id)
        extract_stored_metadata(layout, document_id, {})
    ids = layout.registered_document_ids()
    assert forbidden_cuts(layout, ids) == [] and anchor_mismatches(layout, ids) == []
    chunk_of = chunk_ids(layout)
    texts = {p.chunk_id: p.text for d in ids for p in load_passages(layout, d)}
    assert {beir_id: texts[chunk] for beir_id, chunk in chunk_of.items()} == {r["_id"]: r["text"] for r in ROWS}
    titles = {DocumentMetadata(**read_json(layout.metadata(d))).title_text for d in ids}
    assert titles == {"A study.", None}
    assert near_duplicates([p for d in ids for p in load_passages(layout, d)])  # twins by the library's rule
    write_overlays(layout)
    # "b" and "t2" are twins, but each is judged on its own: neither is folded into the other
    assert read_json(layout.near_duplicates_file) == {}
    assert list(read_json(layout.titles_file).values()) == ["A study."]  # not cleaned to "A study"
