"""Embedding stage asset: passage vectors per document, cached by text hash and model id."""


import dagster as dg

from assets.partitions import documents_partitions
from assets.progress import track
from assets.resources import StateResource
from corpus.embedder import load_embedder
from corpus.embedding_cache import EmbeddingCache
from ingest.embed import embed_document


@dg.asset(partitions_def=documents_partitions, backfill_policy=dg.BackfillPolicy.single_run(),
          deps=["passages", "document_metadata"], group_name="documents", code_version="embed-v1",
          description="Passage vectors (several pieces per long passage), cached by text hash and model id.")
def passage_embeddings(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    layout, config = state.layout, state.config
    embedder = load_embedder(config)
    cache = EmbeddingCache(layout.embedding_cache, config.model_key)
    present = [d for d in context.partition_keys if layout.passages(d).exists()]
    pieces = computed = 0
    for document_id in track(context, present, "embedded"):
        total, fresh = embed_document(layout, config, embedder, cache, document_id)
        pieces += total
        computed += fresh
    return dg.MaterializeResult(metadata={"documents": len(present), "pieces": pieces,
                                          "embedded_now": computed, "from_cache": pieces - computed,
                                          "model": embedder.model_id})
