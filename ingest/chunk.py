"""Chunk stage: canonical text + blocks → passages (one partition per document)."""


import dagster as dg

from assets.chunker import chunk_document
from assets.integrity import anchor_mismatches, forbidden_cuts
from assets.partitions import documents_partitions
from assets.progress import track
from assets.resources import StateResource
from corpus.models import ParsedDocument
from corpus.state import read_text_exact, StateLayout, atomic_write_json, atomic_write_jsonl, read_json
from corpus.versions import CHUNKER_VERSION


def _meta_path(layout: StateLayout, document_id: str):
    return layout.document_dir(document_id) / "passages.meta.json"


def chunk_stored_document(layout: StateLayout, document_id: str) -> int:
    """Chunk one parsed document unless its passages already match text and chunker version."""
    parsed = ParsedDocument(**read_json(layout.parsed_blocks(document_id)))
    wanted = {"chunker_version": CHUNKER_VERSION, "canonical_sha256": parsed.canonical_sha256}
    meta = _meta_path(layout, document_id)
    if meta.exists() and layout.passages(document_id).exists() and read_json(meta) == wanted:
        return -1
    canonical = read_text_exact(layout.canonical_text(document_id))
    passages = chunk_document(document_id, canonical, parsed.blocks, garbled=parsed.garbled_text)
    atomic_write_jsonl(layout.passages(document_id), [p.model_dump(mode="json") for p in passages])
    atomic_write_json(meta, wanted)
    return len(passages)


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
