"""Embedding stage: every passage embedded in pieces that each fit the model's window.

Vectors are cached by (model, exact embedded text): re-indexing never re-embeds unchanged text.
"""


import io

import numpy as np
import dagster as dg

from assets.integrity import load_passages
from assets.overlays_logic import consolidated_titles
from assets.partitions import documents_partitions
from assets.progress import track
from assets.resources import StateResource
from corpus.config import ServedConfig
from corpus.embedder import Embedder, embedding_prefix, load_embedder, passage_pieces
from corpus.embedding_cache import EmbeddingCache, embed_with_cache
from corpus.models import DocumentMetadata
from corpus.state import StateLayout, atomic_write_bytes, read_json


def embeddings_path(layout: StateLayout, config: ServedConfig, document_id: str):
    return layout.document_dir(document_id) / f"embeddings-{config.model_key}.npz"


def embed_document(layout: StateLayout, config: ServedConfig, embedder: Embedder,
                   cache: EmbeddingCache, document_id: str) -> tuple[int, int]:
    """Embed one document's passages; returns (pieces, pieces actually computed)."""
    meta = DocumentMetadata(**read_json(layout.metadata(document_id)))
    title = consolidated_titles([meta]).get(document_id)
    chunk_ids, piece_numbers, texts = [], [], []
    for passage in load_passages(layout, document_id):
        prefix = embedding_prefix(title, passage.section)
        for number, piece in enumerate(passage_pieces(embedder, prefix, passage.text)):
            chunk_ids.append(passage.chunk_id)
            piece_numbers.append(number)
            texts.append(piece)
    before = embedder.encoded_texts
    vectors = embed_with_cache(embedder, cache, texts) if texts else \
        np.zeros((0, embedder.dimension), dtype=np.float32)
    target = embeddings_path(layout, config, document_id)
    buffer = io.BytesIO()
    np.savez(buffer, chunk_ids=np.array(chunk_ids), pieces=np.array(piece_numbers, dtype=np.int32), vectors=vectors)
    atomic_write_bytes(target, buffer.getvalue())
    return len(texts), embedder.encoded_texts - before


def load_document_embeddings(layout: StateLayout, config: ServedConfig, document_id: str):
    """(chunk_ids, pieces, vectors) of one document, as stored by `embed_document`."""
    with np.load(embeddings_path(layout, config, document_id)) as data:
        return list(data["chunk_ids"]), list(data["pieces"]), data["vectors"]


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
