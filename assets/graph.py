"""Entity graph asset: mentions, relations and co-mentions in DuckDB, keyed by the signature."""

import dagster as dg

from assets.resources import StateResource
from ingest.indexes.graph import build_entity_graph


@dg.asset(
    deps=["corpus_signature", "catalogue"],
    group_name="indexes",
    code_version="graph-v1",
    description="Entities (7 types), relations (10 types, GLiNER2 only) and mentions per passage.",
)
def entity_graph(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata=build_entity_graph(state.layout))
