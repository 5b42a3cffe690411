"""Source asset: a registered source file, checked against the hash it was registered under
(registration itself is ingest.register, called by the sensor and the runner)."""


import dagster as dg

from assets.partitions import documents_partitions
from assets.resources import StateResource
from corpus.ids import sha256_hex
from ingest.register import load_source


@dg.asset(partitions_def=documents_partitions, backfill_policy=dg.BackfillPolicy.single_run(),
          group_name="documents", code_version="source-v1",
          description="A registered source file, checked against the hash it was registered under.")
def source_document(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    layout = state.layout
    checked = 0
    for document_id in context.partition_keys:
        record, path = load_source(layout, document_id)
        if sha256_hex(path.read_bytes()) != record.source_sha256:
            raise dg.Failure(f"{document_id}: source bytes differ from the registered hash")
        checked += 1
    return dg.MaterializeResult(metadata={"documents": checked})
