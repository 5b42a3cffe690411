"""Metadata stage: title, authors, year, venue with per-field provenance, stored per document."""

from __future__ import annotations

from corpus.models import ParsedDocument
from corpus.state.layout import StateLayout, atomic_write_json, read_json, read_text_exact
from ingest.parsing.beir import BEIR_FORMAT, beir_metadata
from ingest.passages.metadata_extract import extract_metadata
from ingest.sources.register import load_source


def extract_stored_metadata(layout: StateLayout, document_id: str, manifest: dict[str, dict]) -> None:
    record, path = load_source(layout, document_id)
    if record.format == BEIR_FORMAT:  # the corpus's own title, nothing to extract
        meta = beir_metadata(document_id, path.read_bytes())
        atomic_write_json(layout.metadata(document_id), meta.model_dump(mode="json"))
        return
    parsed = ParsedDocument(**read_json(layout.parsed_blocks(document_id)))
    canonical = read_text_exact(layout.canonical_text(document_id))
    row = manifest.get(record.library_file or "") or record.declared  # the bundled manifest, else the folder's
    meta = extract_metadata(document_id, path, record.format, canonical, parsed.blocks, row)
    atomic_write_json(layout.metadata(document_id), meta.model_dump(mode="json"))
