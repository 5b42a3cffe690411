"""Chunk stage: canonical text + blocks → passages, stored per document."""

from __future__ import annotations

from corpus.models import ParsedDocument
from corpus.state.layout import StateLayout, atomic_write_json, atomic_write_jsonl, read_json, read_text_exact
from corpus.versions import CHUNKER_VERSION, PASSAGE_ROLES_VERSION
from ingest.parsing.beir import BEIR_PARSER, beir_passages
from ingest.passages.chunker import chunk_document
from ingest.sources.register import load_source


def chunk_stored_document(layout: StateLayout, document_id: str) -> int:
    """Chunk one parsed document unless its passages already match text and chunker version."""
    parsed = ParsedDocument(**read_json(layout.parsed_blocks(document_id)))
    wanted = {
        "chunker_version": CHUNKER_VERSION,
        "canonical_sha256": parsed.canonical_sha256,
        "roles_version": PASSAGE_ROLES_VERSION,
    }
    meta = layout.passages_meta(document_id)
    if meta.exists() and layout.passages(document_id).exists() and read_json(meta) == wanted:
        return -1
    canonical = read_text_exact(layout.canonical_text(document_id))
    if parsed.parser == BEIR_PARSER:  # a benchmark's judged records: one passage each, never windowed
        passages = beir_passages(document_id, canonical, load_source(layout, document_id)[1].read_bytes())
    else:
        passages = chunk_document(document_id, canonical, parsed.blocks, garbled=parsed.garbled_text)
    atomic_write_jsonl(layout.passages(document_id), [p.model_dump(mode="json") for p in passages])
    atomic_write_json(meta, wanted)
    return len(passages)
