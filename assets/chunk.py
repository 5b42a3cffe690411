"""Chunk stage asset: canonical text + blocks → passages (one partition per document)."""

import dagster as dg

from assets.partitions import document_asset
from assets.progress import per_document
from assets.resources import StateResource
from corpus.state.layout import read_jsonl
from corpus.versions import CHUNKER_VERSION
from ingest.passages.chunk import chunk_stored_document
from ingest.passages.integrity import anchor_mismatches, forbidden_cuts


@document_asset(
    deps=["parsed_document"],
    group_name="documents",
    code_version=CHUNKER_VERSION,
    description="Passages: consecutive blocks under one section path, cut only where docs/DESIGN.md §4 allows.",
    check_specs=[
        dg.AssetCheckSpec("no_forbidden_cuts", asset="passages"),
        dg.AssetCheckSpec("anchors_round_trip", asset="passages"),
    ],
)
def passages(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    layout = state.layout

    def chunk(document_id: str) -> dict:
        made = chunk_stored_document(layout, document_id)
        count = made if made >= 0 else len(read_jsonl(layout.passages(document_id)))
        return {"passages": count, "reused": made < 0}

    present = list(per_document(context, layout, "chunk", chunk))
    cuts = forbidden_cuts(layout, present)
    anchors = anchor_mismatches(layout, present)
    return dg.MaterializeResult(
        check_results=[
            dg.AssetCheckResult(
                check_name="no_forbidden_cuts",
                passed=not cuts,
                metadata={"violations": len(cuts), "examples": cuts[:5]},
            ),
            dg.AssetCheckResult(
                check_name="anchors_round_trip",
                passed=not anchors,
                metadata={"mismatches": len(anchors), "examples": anchors[:5]},
            ),
        ]
    )
