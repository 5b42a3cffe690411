"""Benchmark formats: BEIR folders and the library question set with verbatim gold quotes.

Library gold is a quote, not a chunk id: it is located in the document's canonical text at
evaluation time and mapped to whichever passages overlap it, so a re-chunked corpus keeps its gold.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, field_validator, model_validator

from corpus.ids import sha256_hex
from corpus.reading.reader import CorpusReader
from evaluation.metrics import GOLD_GAIN
from ingest.parsing.beir import read_corpus
from serving.citation.verify import MIN_QUOTE_CHARS, verify_quote

DEFAULT_SPLIT = "test"
Family = Literal["single", "table", "formula", "dated", "exact", "multi", "negative"]


class BeirSet(BaseModel):
    name: str
    split: str
    corpus: dict[str, dict]  # _id -> {"title", "text"[, "group"]} (ingest.parsing.beir.read_corpus)
    queries: dict[str, str]  # only queries that have judgements
    qrels: dict[str, dict[str, int]]  # query id -> corpus id -> grade
    content_hash: str  # SHA-256 over the three files read


def _qrels_file(folder: Path, split: str | None) -> Path:
    qrels = folder / "qrels"
    if split is not None:
        return qrels / f"{split}.tsv"
    files = sorted(qrels.glob("*.tsv"))
    default = qrels / f"{DEFAULT_SPLIT}.tsv"
    if default.exists():
        return default
    if len(files) != 1:
        raise ValueError(f"{qrels}: no {DEFAULT_SPLIT}.tsv and {len(files)} split files; name the split")
    return files[0]


def _read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.reader(handle, delimiter="\t")):
            if not row:
                continue
            if number == 0 and not row[-1].lstrip("-").isdigit():
                continue  # header line (query-id, corpus-id, score)
            query, document, grade = row[0], row[1], int(row[-1])
            qrels.setdefault(query, {})[document] = grade
    return qrels


def load_beir(folder: Path, split: str | None = None) -> BeirSet:
    """corpus.jsonl, queries.jsonl and qrels/<split>.tsv (test.tsv by default, else the only file)."""
    folder = Path(folder)
    qrels_path = _qrels_file(folder, split)
    paths = (folder / "corpus.jsonl", folder / "queries.jsonl", qrels_path)
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    corpus = read_corpus(paths[0])  # rows naming one source (TAT-QA's context) carry its group
    qrels = _read_qrels(qrels_path)
    queries = {}
    for line in paths[1].read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if str(row["_id"]) in qrels:
                queries[str(row["_id"])] = row["text"]
    return BeirSet(
        name=folder.name,
        split=qrels_path.stem,
        corpus=corpus,
        queries=queries,
        qrels={q: grades for q, grades in qrels.items() if q in queries},
        content_hash=digest.hexdigest(),
    )


class LibraryQuestion(BaseModel):
    id: str
    question: str
    family: Family
    gold: list[dict[str, str]]  # {"file": manifest `file` column, "quote": verbatim text}
    period: tuple[int | None, int | None] | None = None  # [from, to] years of a dated question

    @field_validator("gold")
    @classmethod
    def _gold_shape(cls, gold: list[dict[str, str]]) -> list[dict[str, str]]:
        for item in gold:
            if set(item) != {"file", "quote"} or len(item["quote"].strip()) < MIN_QUOTE_CHARS:
                raise ValueError(f"gold must be {{file, quote}}, quote ≥ {MIN_QUOTE_CHARS} chars: {item}")
        return gold

    @model_validator(mode="after")
    def _negative_iff_no_gold(self) -> LibraryQuestion:
        if (self.family == "negative") != (not self.gold):
            raise ValueError(f"{self.id}: negative questions, and only they, have no gold")
        if (self.family == "dated") != (self.period is not None):
            raise ValueError(f"{self.id}: dated questions, and only they, carry a period")
        return self


def load_library_questions(path: Path) -> list[LibraryQuestion]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    questions = [LibraryQuestion(**json.loads(line)) for line in lines if line.strip()]
    ids = [q.id for q in questions]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path}: duplicate question ids")
    return questions


class Expansion(BaseModel):
    """A question's blind expansions (written from its text alone, once, before any tuning): what a
    cooperative caller passes as `alternatives` and `hypothetical_passage`."""

    id: str
    alternatives: list[str]
    hypothetical_passage: str


def expansions_file(questions: Path) -> Path:
    """Where a question file's expansions live: beside it, `<stem>_expansions.jsonl`."""
    return Path(questions).with_name(f"{Path(questions).stem}_expansions.jsonl")


def load_expansions(questions: Path) -> dict[str, Expansion]:
    """Question id -> its expansions; empty when the question file has none."""
    path = expansions_file(questions)
    if not path.exists():
        return {}
    rows = [
        Expansion.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    return {row.id: row for row in rows}


def embedded_expansions(questions: Path) -> dict[str, Expansion]:
    """Question id -> its expansions, for a question file that carries them on each line (the
    absent-topic questions were written with theirs)."""
    rows = [json.loads(line) for line in Path(questions).read_text(encoding="utf-8").splitlines() if line.strip()]
    return {
        row["id"]: Expansion(
            id=row["id"], alternatives=row["alternatives"], hypothetical_passage=row["hypothetical_passage"]
        )
        for row in rows
        if "alternatives" in row and "hypothetical_passage" in row
    }


def questions_hash(path: Path) -> str:
    return sha256_hex(Path(path).read_bytes())


def library_file_map(reader: CorpusReader) -> dict[str, str]:
    """A gold `file` -> document_id: a bundled document by its manifest `file` path; any other by
    the name it was ingested under (a folder's file name, e.g. a Debian vignette's), unless two
    documents share that name."""
    by_name: dict[str, list[str]] = {}
    for document_id, entry in reader.documents.items():
        if not entry.source.library_file:
            by_name.setdefault(entry.source.original_name, []).append(document_id)
    named = {name: ids[0] for name, ids in by_name.items() if len(ids) == 1}
    return named | {e.source.library_file: d for d, e in reader.documents.items() if e.source.library_file}


def chunk_documents(reader: CorpusReader) -> dict[str, str]:
    """chunk_id -> document_id: the `doc_of` map of the graded nDCG."""
    return {chunk_id: passage.document_id for chunk_id, passage in reader.passages.items()}


class GoldQuoteNotFound(LookupError):
    """A gold quote that citation verification cannot locate in its document."""


def gold_passages(question: LibraryQuestion, reader: CorpusReader, file_to_document: dict[str, str]) -> dict[str, int]:
    """chunk_id -> GOLD_GAIN for each passage whose canonical ranges overlap a gold quote."""
    gains: dict[str, int] = {}
    for item in question.gold:
        document_id = file_to_document.get(item["file"])
        if document_id is None:
            raise GoldQuoteNotFound(f"{question.id}: {item['file']} is not in the corpus")
        result = verify_quote(reader, document_id, item["quote"])
        if result.status == "not_found":
            raise GoldQuoteNotFound(f"{question.id}: quote not found in {item['file']}: {item['quote'][:60]!r}")
        for passage in reader.by_document.get(document_id, []):
            if any(s < qe and qs < e for s, e in passage.ranges for qs, qe in result.offsets):
                gains[passage.chunk_id] = GOLD_GAIN
    return gains
