"""Vector index asset: Qdrant (embedded by default, a server by URL), updated per document."""

import dagster as dg

from assets.resources import StateResource
from corpus.state.signature import recorded_signature
from ingest.indexes.vectors import sync_vector_index


@dg.asset(
    deps=["passage_embeddings", "corpus_signature"],
    group_name="indexes",
    code_version="vectors-v1",
    description="Qdrant collection of passage pieces with document_id/year/authors payload; records the signature.",
)
def vector_index(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    from corpus.encoding.embedder import load_embedder
    from corpus.encoding.onnx_export import ensure_query_graphs

    config = state.config
    stats = sync_vector_index(state.layout, config, load_embedder(config).dimension)
    try:  # the server's torch-free query encoder; without it the server falls back, so never fatal
        query_encoder = str(ensure_query_graphs(state.layout, config) or "transformers")
    except Exception as exc:  # noqa: BLE001 — an export failure must not block indexing
        context.log.warning(f"ONNX export failed ({exc}); the server will embed queries with transformers")
        query_encoder = "transformers"
    return dg.MaterializeResult(
        metadata={
            **stats,
            "query_encoder": query_encoder,
            "backend": config.vector_backend,
            "signature": recorded_signature(state.layout) or "",
        }
    )
