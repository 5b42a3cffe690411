"""Metadata stage asset: title, authors, year, venue with per-field provenance (one partition per document)."""


import dagster as dg

from assets.partitions import documents_partitions
from assets.progress import track
from assets.resources import StateResource
from ingest.library import MANIFEST_PATH
from ingest.metadata import extract_stored_metadata
from ingest.metadata_extract import load_manifest


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
