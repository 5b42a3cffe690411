"""BM25 index asset (bm25s): files named by the corpus signature, with a manifest checked on load."""

import dagster as dg

from assets.resources import StateResource
from ingest.indexes.bm25 import build_bm25_index


@dg.asset(
    deps=["corpus_signature"],
    group_name="indexes",
    code_version="bm25-v1",
    description="bm25s index over title + section path + passage, identifiers kept whole.",
)
def bm25_index(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata=build_bm25_index(state.layout, state.config))
