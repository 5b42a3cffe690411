"""Chunk stage asset: canonical text + blocks → passages (one partition per document)."""


import dagster as dg

from assets.partitions import documents_partitions
from assets.progress import track
from assets.resources import StateResource
from corpus.versions import CHUNKER_VERSION
from ingest.chunk import chunk_stored_document
from ingest.integrity import anchor_mismatches, forbidden_cuts


@dg.asset(partitions_def=documents_partitions, backfill_policy=dg.BackfillPolicy.single_run(),
          deps=["parsed_document"], group_name="documents", code_version=CHUNKER_VERSION,
          description="Passages: consecutive blocks under one section path, cut only where DESIGN §4 allows.",
          check_specs=[dg.AssetCheckSpec("no_forbidden_cuts", asset="passages"),
                       dg.AssetCheckSpec("anchors_round_trip", asset="passages")])
def passages(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    layout = state.layout
    present = [d for d in context.partition_keys if layout.parsed_blocks(d).exists()]
    made = 0
    for document_id in track(context, present, "chunked"):
        made += max(chunk_stored_document(layout, document_id), 0)
    cuts = forbidden_cuts(layout, present)
    anchors = anchor_mismatches(layout, present)
    return dg.MaterializeResult(
        metadata={"documents": len(present), "new_passages": made},
        check_results=[
            dg.AssetCheckResult(check_name="no_forbidden_cuts", passed=not cuts,
                                metadata={"violations": len(cuts), "examples": cuts[:5]}),
            dg.AssetCheckResult(check_name="anchors_round_trip", passed=not anchors,
                                metadata={"mismatches": len(anchors), "examples": anchors[:5]}),
        ])
