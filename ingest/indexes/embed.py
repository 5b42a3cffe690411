"""Embedding stage: every passage embedded in pieces that each fit the model's window.

Vectors are cached by (model, exact embedded text): re-indexing never re-embeds unchanged text.
`passage_texts` is the one place a passage becomes embedded pieces; the pipeline embeds a run's
documents together (`prefill`, then `embed_document` per document), a benchmark's corpus
included.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from corpus.config import ServedConfig
from corpus.encoding.embedder import Embedder, embedding_prefix, passage_pieces
from corpus.encoding.embedding_cache import EmbeddingCache, embed_with_cache
from corpus.models import DocumentMetadata, Passage
from corpus.state.layout import StateLayout, atomic_write_bytes, read_json
from ingest.passages.integrity import load_passages
from ingest.passages.overlays import consolidated_titles

log = logging.getLogger(__name__)

# Pieces embedded per length-sorted pass of `prefill` (bounds memory on a large run: 20k × 384 floats).
PREFILL_PIECES = 20_000
Owners = list[tuple[Passage, int]]


@dataclass
class DocumentPieces:
    """One document's embedded strings, (passage, piece number) per string, and how many of its
    strings `prefill` sent to the model (the rest were cached or shared with an earlier document)."""

    owners: Owners
    texts: list[str]
    embedded_now: int = 0


def passage_texts(embedder: Embedder, titled: Iterable[tuple[str | None, Passage]]) -> tuple[Owners, list[str]]:
    """((passage, piece number), string) for (document title, passage) pairs: each passage's
    pieces carry the title and section prefix."""
    owners, texts = [], []
    for title, passage in titled:
        prefix = embedding_prefix(title, passage.section)
        for number, piece in enumerate(passage_pieces(embedder, prefix, passage.text)):
            owners.append((passage, number))
            texts.append(piece)
    return owners, texts


def document_pieces(layout: StateLayout, embedder: Embedder, document_id: str) -> DocumentPieces:
    meta = DocumentMetadata(**read_json(layout.metadata(document_id)))
    title = consolidated_titles([meta]).get(document_id)
    return DocumentPieces(*passage_texts(embedder, ((title, p) for p in load_passages(layout, document_id))))


def prefill(
    layout: StateLayout,
    embedder: Embedder,
    cache: EmbeddingCache,
    document_ids: list[str],
    progress: Callable[[int, int], None] | None = None,
) -> tuple[dict[str, DocumentPieces], list[str]]:
    """Cut documents into pieces, from the first of `document_ids` on until PREFILL_PIECES uncached
    strings are pending, and embed those together, so a batch holds pieces of similar length from
    any document (a batch per document spans long and short pieces and computes more padding;
    docs/measurements.md, *Ingestion*). Returns (pieces per document, the documents covered). A document that
    cannot be read is covered but left out: `embed_document` meets its error and it is set aside."""
    prepared: dict[str, DocumentPieces] = {}
    pending: dict[str, None] = {}  # uncached strings, in first-seen order
    covered: list[str] = []
    for document_id in document_ids:
        if len(pending) >= PREFILL_PIECES:
            break
        covered.append(document_id)
        try:
            pieces = document_pieces(layout, embedder, document_id)
        except Exception as exc:  # noqa: BLE001 — reported by the per-document loop
            log.info("%s: not prefilled (%s)", document_id, exc)
            continue
        known = {pieces.texts[i] for i in cache.get_many(pieces.texts)}
        fresh = [t for t in dict.fromkeys(pieces.texts) if t not in known and t not in pending]
        pieces.embedded_now = len(fresh)
        pending.update(dict.fromkeys(fresh))
        prepared[document_id] = pieces
    if pending:
        texts = list(pending)
        try:
            cache.put_many(texts, embedder.embed_passages(texts, progress=progress))
        except Exception as exc:  # noqa: BLE001 — one document's text must not sink the others
            log.warning("embedding %d pieces together failed (%s); embedding document by document", len(texts), exc)
            for pieces in prepared.values():
                pieces.embedded_now = 0  # embed_document counts what it computes itself
    return prepared, covered


def embed_document(
    layout: StateLayout,
    config: ServedConfig,
    embedder: Embedder,
    cache: EmbeddingCache,
    document_id: str,
    prepared: DocumentPieces | None = None,
) -> tuple[int, int]:
    """Embed one document's passages (`prepared`: its pieces, already embedded into the cache by
    `prefill`); returns (pieces, pieces computed for this document)."""
    before = embedder.encoded_texts
    pieces = prepared or document_pieces(layout, embedder, document_id)
    vectors = (
        embed_with_cache(embedder, cache, pieces.texts)
        if pieces.texts
        else np.zeros((0, embedder.dimension), dtype=np.float32)
    )
    buffer = io.BytesIO()
    np.savez(
        buffer,
        chunk_ids=np.array([p.chunk_id for p, _ in pieces.owners]),
        pieces=np.array([n for _, n in pieces.owners], dtype=np.int32),
        vectors=vectors,
    )
    atomic_write_bytes(layout.embeddings(document_id, config.model_key), buffer.getvalue())
    return len(pieces.owners), pieces.embedded_now + embedder.encoded_texts - before


def load_document_embeddings(layout: StateLayout, config: ServedConfig, document_id: str):
    """(chunk_ids, pieces, vectors) of one document, as stored by `embed_document`."""
    with np.load(layout.embeddings(document_id, config.model_key)) as data:
        return list(data["chunk_ids"]), list(data["pieces"]), data["vectors"]
