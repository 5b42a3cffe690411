"""Source asset: a registered source file, checked against the hash it was registered under
(registration itself is ingest.sources.register, called by the sensor and the runner)."""

import dagster as dg

from assets.partitions import document_asset
from assets.progress import per_document
from assets.resources import StateResource
from corpus.ids import sha256_hex
from ingest.sources.register import load_source


@document_asset(
    group_name="documents",
    code_version="source-v1",
    description="A registered source file, checked against the hash it was registered under.",
)
def source_document(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    layout = state.layout

    def check(document_id: str) -> dict:
        record, path = load_source(layout, document_id)
        if sha256_hex(path.read_bytes()) != record.source_sha256:
            raise ValueError("source bytes differ from the registered hash")
        return {"format": record.format, "bytes": record.bytes}

    per_document(context, layout, "source", check)
    return dg.MaterializeResult()
