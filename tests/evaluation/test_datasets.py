"""BEIR loader on the bundled benchmarks; library questions; gold quotes mapped to passages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from corpus.ids import chunk_id_for, document_id_for_bytes, sha256_hex
from corpus.models import BlockKind, DocumentMetadata, ParsedDocument, Passage, RawBlock, SourceRecord
from corpus.reading.reader import CorpusReader
from corpus.state.layout import StateLayout, atomic_write_json, atomic_write_jsonl, atomic_write_text
from corpus.text.canonical import assemble_canonical
from evaluation.datasets import (
    GoldQuoteNotFound,
    LibraryQuestion,
    gold_passages,
    library_file_map,
    load_beir,
    load_library_questions,
    questions_hash,
)
from evaluation.metrics import GOLD_GAIN

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_scifact_test_split():
    beir = load_beir(BENCH / "scifact")
    assert beir.split == "test" and len(beir.queries) == 300
    assert sum(len(g) for g in beir.qrels.values()) == 339
    assert set(beir.qrels) == set(beir.queries)
    assert all(d in beir.corpus for grades in beir.qrels.values() for d in grades)
    assert len(beir.corpus) == 5183 and set(beir.corpus["4983"]) == {"title", "text"}
    train = load_beir(BENCH / "scifact", split="train")
    assert len(train.queries) == 809 and train.content_hash != beir.content_hash


def test_tatqa_only_split_is_dev():
    beir = load_beir(BENCH / "tatqa")
    assert beir.split == "dev" and sum(len(g) for g in beir.qrels.values()) == 2200
    assert set(beir.qrels) == set(beir.queries) and len(beir.queries) <= 1668
    assert load_beir(BENCH / "tatqa").content_hash == beir.content_hash


def test_headerless_qrels_and_unjudged_queries(tmp_path):
    (tmp_path / "qrels").mkdir()
    (tmp_path / "corpus.jsonl").write_text('{"_id": "d1", "text": "alpha"}\n{"_id": "d2", "title": "T", "text": "b"}\n')
    (tmp_path / "queries.jsonl").write_text('{"_id": "q1", "text": "one"}\n{"_id": "q2", "text": "two"}\n')
    (tmp_path / "qrels" / "dev.tsv").write_text("q1\td1\t2\nq1\td2\t0\n")
    beir = load_beir(tmp_path)
    assert beir.queries == {"q1": "one"} and beir.qrels == {"q1": {"d1": 2, "d2": 0}}
    assert beir.corpus["d1"] == {"title": "", "text": "alpha"}
    (tmp_path / "qrels" / "train.tsv").write_text("q2\td1\t1\n")
    with pytest.raises(ValueError):
        load_beir(tmp_path)  # two splits, no test.tsv: ambiguous


def test_library_question_validation(tmp_path):
    good = {"id": "s1", "question": "q?", "family": "single", "gold": [{"file": "pdf/a.pdf", "quote": "x" * 20}]}
    with pytest.raises(ValidationError):
        LibraryQuestion(**{**good, "family": "negative"})
    with pytest.raises(ValidationError):
        LibraryQuestion(**{**good, "gold": [{"file": "pdf/a.pdf", "quote": "short"}]})
    with pytest.raises(ValidationError):
        LibraryQuestion(**{**good, "family": "unknown"})
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "id": "n1", "family": "negative", "gold": []}) + "\n")
    assert [q.family for q in load_library_questions(path)] == ["single", "negative"]
    before = questions_hash(path)
    path.write_text(path.read_text() + json.dumps(good) + "\n")
    assert questions_hash(path) != before
    with pytest.raises(ValueError):
        load_library_questions(path)  # duplicate id


PARAGRAPHS = [
    "Volatility clusters: large moves follow large moves.",
    "The GARCH(1,1) model\nwrites the conditional variance as a recursion.",
    "Risk parity equalises the risk contributions of the assets.",
]


def _state(tmp_path: Path, library_file: str | None = "markdown/a.md") -> CorpusReader:
    """One document, three paragraphs, two passages (paragraphs 1–2 and 3); `library_file` None:
    a document from a folder of the user's, known by the name it was ingested under."""
    layout = StateLayout(tmp_path / "state").ensure()
    data = "\n\n".join(PARAGRAPHS).encode()
    doc = document_id_for_bytes(data)
    canonical, blocks = assemble_canonical([RawBlock(kind=BlockKind.paragraph, text=p) for p in PARAGRAPHS])
    atomic_write_json(
        layout.registry_entry(doc),
        SourceRecord(
            document_id=doc,
            format="markdown",
            source_sha256=sha256_hex(data),
            bytes=len(data),
            original_name="a.md",
            library_file=library_file,
            registered_at="2026-11-30T00:00:00Z",
        ).model_dump(),
    )
    atomic_write_text(layout.canonical_text(doc), canonical)
    atomic_write_json(
        layout.parsed_blocks(doc),
        ParsedDocument(
            document_id=doc,
            parser="test",
            parser_version="0",
            canonical_sha256=sha256_hex(canonical),
            canonical_chars=len(canonical),
            blocks=blocks,
        ).model_dump(mode="json"),
    )
    atomic_write_json(layout.metadata(doc), DocumentMetadata(document_id=doc).model_dump(mode="json"))
    spans = [(blocks[0].start, blocks[1].end), (blocks[2].start, blocks[2].end)]
    atomic_write_jsonl(
        layout.passages(doc),
        [
            Passage(
                chunk_id=chunk_id_for(doc, s, e, "t"),
                document_id=doc,
                ordinal=i,
                text=canonical[s:e],
                ranges=[(s, e)],
                granularity="exact",
            ).model_dump(mode="json")
            for i, (s, e) in enumerate(spans)
        ],
    )
    return CorpusReader.open(layout)


def test_a_document_outside_the_library_is_known_by_its_ingested_name(tmp_path):
    reader = _state(tmp_path, library_file=None)
    assert library_file_map(reader) == {"a.md": next(iter(reader.documents))}


def test_gold_passages_follow_canonical_offsets(tmp_path):
    reader = _state(tmp_path)
    files = library_file_map(reader)
    (doc,) = files.values()
    first, second = reader.by_document[doc]
    assert reader.canonical_text(doc)[slice(*first.ranges[0])] == first.text
    question = LibraryQuestion(
        id="t",
        question="?",
        family="single",
        gold=[{"file": "markdown/a.md", "quote": "GARCH(1,1) model writes the conditional"}],
    )
    assert gold_passages(question, reader, files) == {first.chunk_id: GOLD_GAIN}  # normalised newline
    across = LibraryQuestion(
        id="u",
        question="?",
        family="single",
        gold=[{"file": "markdown/a.md", "quote": "as a recursion.\n\nRisk parity"}],
    )
    assert gold_passages(across, reader, files) == {first.chunk_id: GOLD_GAIN, second.chunk_id: GOLD_GAIN}
    missing = LibraryQuestion(
        id="v", question="?", family="single", gold=[{"file": "markdown/a.md", "quote": "a sentence that is not there"}]
    )
    with pytest.raises(GoldQuoteNotFound):
        gold_passages(missing, reader, files)
    negative = LibraryQuestion(id="w", question="?", family="negative", gold=[])
    assert gold_passages(negative, reader, files) == {}
