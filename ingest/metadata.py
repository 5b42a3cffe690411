"""Metadata stage: title, authors, year, venue with per-field provenance (one partition per document)."""


import dagster as dg

from assets.library import MANIFEST_PATH
from assets.metadata_extract import extract_metadata, load_manifest
from assets.partitions import documents_partitions
from assets.progress import track
from assets.register import load_source
from assets.resources import StateResource
from corpus.models import ParsedDocument
from corpus.state import read_text_exact, StateLayout, atomic_write_json, read_json

def extract_stored_metadata(layout: StateLayout, document_id: str, manifest: dict[str, dict]) -> None:
    record, path = load_source(layout, document_id)
    parsed = ParsedDocument(**read_json(layout.parsed_blocks(document_id)))
    canonical = read_text_exact(layout.canonical_text(document_id))
    row = manifest.get(record.library_file or "")
    meta = extract_metadata(document_id, path, record.format, canonical, parsed.blocks, row)
    atomic_write_json(layout.metadata(document_id), meta.model_dump(mode="json"))


@dg.asset(partitions_def=documents_partitions, backfill_policy=dg.BackfillPolicy.single_run(),
          deps=["parsed_document"], group_name="documents", code_version="metadata-v1",
          description="Bibliographic fields from PDF metadata, the first page and the manifest, with provenance.")
def document_metadata(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    layout = state.layout
    manifest = load_manifest(MANIFEST_PATH)
    present = [d for d in context.partition_keys if layout.parsed_blocks(d).exists()]
    for document_id in track(context, present, "metadata"):
        extract_stored_metadata(layout, document_id, manifest)
    return dg.MaterializeResult(metadata={"documents": len(present)})
