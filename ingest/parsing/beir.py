"""BEIR corpora: `corpus.jsonl` records as registered documents, one exact passage per record.

A BEIR corpus is a benchmark's judged units: each record (`_id`, `title`, `text`) is one passage,
embedded and scored alone, and its text is kept as written (qrels judge the record, so the canonical
character rule and the chunker's windows do not apply to it). Records that name their source
(GROUP_FIELD in their metadata: TAT-QA's table and paragraphs of one annual report) become the
passages of one document, in corpus order, so document-level rules apply to them as to a
library's documents; every other record is a document of its own.

A document's registered source is the JSON of its record(s), so its document id, canonical text
and chunk ids are functions of the records alone.
"""

from __future__ import annotations

import json
from pathlib import Path

from corpus.ids import chunk_id_for
from corpus.models import Block, BlockKind, DocumentMetadata, MetadataField, Passage
from corpus.versions import CHUNKER_VERSION

BEIR_FORMAT = "beir"
BEIR_PARSER = "beir"
BEIR_PARSER_VERSION = "beir-v1"
# A BEIR corpus cut from multi-passage sources names the source in each record's metadata.
GROUP_FIELD = "context_id"
PASSAGE_SEPARATOR = "\n\n"  # between a grouped document's passages in its canonical text

Record = tuple[str, dict]  # (BEIR id, {"title", "text"[, "group": the record's GROUP_FIELD]})


def read_corpus(path: Path) -> dict[str, dict]:
    """corpus.jsonl as BEIR id -> {"title", "text"[, "group"]} (missing fields read as "")."""
    corpus = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            entry = {"title": row.get("title") or "", "text": row.get("text") or ""}
            metadata = row.get("metadata")
            if isinstance(metadata, dict) and metadata.get(GROUP_FIELD):
                entry["group"] = str(metadata[GROUP_FIELD])
            corpus[str(row["_id"])] = entry
    return corpus


def corpus_documents(corpus: dict[str, dict]) -> list[list[Record]]:
    """The corpus's records as documents: records sharing a group together (first-seen order),
    every other record alone."""
    documents: dict[str, list[Record]] = {}
    for beir_id, doc in corpus.items():
        key = f"group:{doc['group']}" if doc.get("group") else f"id:{beir_id}"
        documents.setdefault(key, []).append((beir_id, doc))
    return list(documents.values())


def document_source(records: list[Record]) -> bytes:
    """The registered bytes of one document: its record (alone) or its records (grouped)."""
    if len(records) == 1:
        beir_id, doc = records[0]
        return json.dumps({"_id": beir_id, **doc}, sort_keys=True, ensure_ascii=False).encode()
    return json.dumps([{"_id": i, **d} for i, d in records], sort_keys=True, ensure_ascii=False).encode()


def document_label(records: list[Record]) -> str:
    """A document's name within its benchmark: its record's id, or the group it gathers."""
    return records[0][0] if len(records) == 1 else records[0][1]["group"]


def source_records(data: bytes) -> list[Record]:
    """The records of a registered source, in corpus order (inverse of `document_source`)."""
    loaded = json.loads(data)
    rows = loaded if isinstance(loaded, list) else [loaded]
    return [(str(row["_id"]), {k: v for k, v in row.items() if k != "_id"}) for row in rows]


def record_spans(records: list[Record]) -> list[tuple[int, int]]:
    """Each record's [start, end) in the canonical text (records joined by PASSAGE_SEPARATOR)."""
    spans, start = [], 0
    for _, doc in records:
        spans.append((start, start + len(doc["text"])))
        start += len(doc["text"]) + len(PASSAGE_SEPARATOR)
    return spans


def parse_beir(data: bytes) -> tuple[str, list[Block]]:
    """Canonical text (the records' texts, as written) and one paragraph block per non-empty record."""
    records = source_records(data)
    text = PASSAGE_SEPARATOR.join(doc["text"] for _, doc in records)
    return text, [Block(kind=BlockKind.paragraph, start=a, end=b) for a, b in record_spans(records) if b > a]


def beir_passages(document_id: str, canonical: str, data: bytes) -> list[Passage]:
    """One exact passage per record, in corpus order (the chunker's windows are not applied)."""
    return [
        Passage(
            chunk_id=chunk_id_for(document_id, a, b, CHUNKER_VERSION),
            document_id=document_id,
            ordinal=ordinal,
            text=canonical[a:b],
            ranges=[(a, b)],
            granularity="exact",
            block_kinds=[BlockKind.paragraph] if b > a else [],
        )
        for ordinal, (a, b) in enumerate(record_spans(source_records(data)))
    ]


def beir_title(records: list[Record]) -> str | None:
    """The document's title: the first record's that has one (TAT-QA's records have none)."""
    return next((doc["title"] for _, doc in records if doc.get("title")), None)


def beir_metadata(document_id: str, data: bytes) -> DocumentMetadata:
    """The title as the corpus gives it (provenance "benchmark": displayed and indexed verbatim)."""
    title = beir_title(source_records(data))
    return DocumentMetadata(
        document_id=document_id, title=MetadataField(value=title, provenance="benchmark" if title else "none")
    )
