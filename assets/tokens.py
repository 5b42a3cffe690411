"""Token index asset: every passage's token vectors, for the late-interaction ranking of hybrid search."""

import dagster as dg

from assets.resources import StateResource
from ingest.indexes.token_index import build_token_index


@dg.asset(
    deps=["corpus_signature", "passage_embeddings"],
    group_name="indexes",
    code_version="token-index-v2",
    description="int8 token vectors of every passage piece (MiniLM's last layer), memory-mapped by the "
    "server to rank hybrid candidates by MaxSim; keyed by weights and signature.",
)
def token_index(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    if not state.config.late_interaction:  # nothing would read it (QUANT_RAG_LATE_INTERACTION=false)
        return dg.MaterializeResult(metadata={"built": 0, "reason": "late interaction is off"})
    return dg.MaterializeResult(metadata=build_token_index(state.layout, state.config))
