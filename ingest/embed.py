"""Embedding stage: every passage embedded in pieces that each fit the model's window.

Vectors are cached by (model, exact embedded text): re-indexing never re-embeds unchanged text.
`embed_passages` is the one place a passage becomes embedded pieces; the pipeline calls it per
document, evaluation's scratch indexes call it for a whole BEIR corpus.
"""

from __future__ import annotations

import io
from typing import Callable, Iterable

import numpy as np

from ingest.integrity import load_passages
from ingest.overlays import consolidated_titles
from corpus.config import ServedConfig
from corpus.embedder import Embedder, embedding_prefix, passage_pieces
from corpus.embedding_cache import EmbeddingCache, embed_with_cache
from corpus.models import DocumentMetadata, Passage
from corpus.state import StateLayout, atomic_write_bytes, read_json


def embed_passages(embedder: Embedder, cache: EmbeddingCache, titled: Iterable[tuple[str | None, Passage]],
                   progress: Callable[[int, int], None] | None = None
                   ) -> tuple[list[tuple[Passage, int]], np.ndarray]:
    """((passage, piece number) per vector, vectors) for (document title, passage) pairs: each
    passage's pieces carry the title and section prefix; cached vectors are not recomputed."""
    owners, texts = [], []
    for title, passage in titled:
        prefix = embedding_prefix(title, passage.section)
        for number, piece in enumerate(passage_pieces(embedder, prefix, passage.text)):
            owners.append((passage, number))
            texts.append(piece)
    if not texts:
        return owners, np.zeros((0, embedder.dimension), dtype=np.float32)
    return owners, embed_with_cache(embedder, cache, texts, progress=progress)


def embed_document(layout: StateLayout, config: ServedConfig, embedder: Embedder,
                   cache: EmbeddingCache, document_id: str) -> tuple[int, int]:
    """Embed one document's passages; returns (pieces, pieces actually computed)."""
    meta = DocumentMetadata(**read_json(layout.metadata(document_id)))
    title = consolidated_titles([meta]).get(document_id)
    before = embedder.encoded_texts
    owners, vectors = embed_passages(embedder, cache, ((title, p) for p in load_passages(layout, document_id)))
    buffer = io.BytesIO()
    np.savez(buffer, chunk_ids=np.array([p.chunk_id for p, _ in owners]),
             pieces=np.array([n for _, n in owners], dtype=np.int32), vectors=vectors)
    atomic_write_bytes(layout.embeddings(document_id, config.model_key), buffer.getvalue())
    return len(owners), embedder.encoded_texts - before


def load_document_embeddings(layout: StateLayout, config: ServedConfig, document_id: str):
    """(chunk_ids, pieces, vectors) of one document, as stored by `embed_document`."""
    with np.load(layout.embeddings(document_id, config.model_key)) as data:
        return list(data["chunk_ids"]), list(data["pieces"]), data["vectors"]
