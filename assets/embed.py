"""Embedding stage asset: passage vectors per document, cached by text hash and model id."""


import dagster as dg

from assets.partitions import document_asset
from assets.progress import per_document
from assets.resources import StateResource
from corpus.embedder import load_embedder
from corpus.embedding_cache import EmbeddingCache
from ingest.embed import embed_document


@document_asset(deps=["passages", "document_metadata"], group_name="documents", code_version="embed-v1",
                description="Passage vectors (several pieces per long passage), cached by text hash and model id.")
def passage_embeddings(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    layout, config = state.layout, state.config
    embedder = load_embedder(config)  # outside the loop: a model that cannot load fails the run, not a document
    cache = EmbeddingCache(layout.embedding_cache, config.model_key)

    def embed(document_id: str) -> dict:
        total, fresh = embed_document(layout, config, embedder, cache, document_id)
        return {"pieces": total, "embedded_now": fresh, "from_cache": total - fresh}

    per_document(context, layout, "embed", embed)
    return dg.MaterializeResult(metadata={"model": embedder.model_id})
