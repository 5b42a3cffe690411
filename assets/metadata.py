"""Metadata stage asset: title, authors, year, venue with per-field provenance (one partition per document)."""

import dagster as dg

from assets.partitions import document_asset
from assets.progress import per_document
from assets.resources import StateResource
from corpus.models import DocumentMetadata
from corpus.state.layout import read_json
from ingest.passages.metadata import extract_stored_metadata
from ingest.passages.metadata_extract import load_manifest
from ingest.sources.library import MANIFEST_PATH


@document_asset(
    deps=["parsed_document"],
    group_name="documents",
    code_version="metadata-v1",
    description="Bibliographic fields from PDF metadata, the first page and the manifest, with provenance.",
)
def document_metadata(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    layout = state.layout
    manifest = load_manifest(MANIFEST_PATH)

    def describe(document_id: str) -> dict:
        extract_stored_metadata(layout, document_id, manifest)
        meta = DocumentMetadata(**read_json(layout.metadata(document_id)))
        return {
            "title": str(meta.title.value or ""),
            "year": str(meta.year.value or ""),
            "title_from": meta.title.provenance,
        }

    per_document(context, layout, "metadata", describe)
    return dg.MaterializeResult()
