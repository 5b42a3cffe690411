"""Passage store asset: every passage in one SQLite file per corpus signature, read by id at scale."""

import dagster as dg

from assets.resources import StateResource
from ingest.indexes.passage_store import build_passage_store


@dg.asset(
    deps=["corpus_signature"],
    group_name="indexes",
    code_version="passage-store-v1",
    description="SQLite file of every passage keyed by chunk id (and document, in reading order): "
    "large states are served from it instead of parsing every passage at start.",
)
def passage_store(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata=build_passage_store(state.layout))
