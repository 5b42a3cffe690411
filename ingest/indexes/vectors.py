"""Vector index: Qdrant (embedded by default, a server by URL), updated per document.

`vector_meta` is the one record of what a vector store was built from (model, the runtime that
embedded the passages, dimension, signature, documents), written by the pipeline and by evaluation's scratch indexes.
"""

from __future__ import annotations

from corpus.config import ServedConfig
from corpus.encoding.bf16_encoder import resolved_passage_runtime
from corpus.ids import sha256_hex
from corpus.state.generations import begin_generation, promote_generation
from corpus.state.layout import StateLayout
from corpus.state.signature import recorded_signature
from corpus.vectors.vector_store import VectorPoint, edge_root, open_vector_store
from ingest.indexes.corpus_view import indexed_documents
from ingest.indexes.embed import load_document_embeddings

# Points written per call: a flush per document made a large fresh index wait on the disk per
# document (docs/measurements.md, "The 1M-passage path").
UPSERT_POINTS = 20_000


def _fingerprint(layout: StateLayout, config: ServedConfig, document_id: str) -> str:
    return sha256_hex(layout.embeddings(document_id, config.model_key).read_bytes())[:16]


def vector_meta(config: ServedConfig, dimension: int, signature: str | None, documents: dict[str, str]) -> dict:
    """What the store records about itself; `documents` maps document_id to its fingerprint."""
    return {
        "model_id": config.embedding_model,
        "model_key": config.model_key,
        "passage_runtime": resolved_passage_runtime(config.passage_runtime),
        "dimension": dimension,
        "signature": signature,
        "documents": documents,
    }


def sync_vector_index(layout: StateLayout, config: ServedConfig, dimension: int) -> dict[str, int]:
    """Upsert changed documents, delete removed ones; untouched documents are not rewritten."""
    signature = recorded_signature(layout)
    documents = [d for d in indexed_documents(layout) if layout.embeddings(d.document_id, config.model_key).exists()]
    # Edge: update a copy and promote it, so a running server keeps its generation open.
    edge = config.vector_backend == "edge"
    generation = begin_generation(edge_root(layout, config)) if edge else None
    store = open_vector_store(layout, config, dimension, generation=generation)
    try:
        meta = store.get_meta()
        known: dict[str, str] = dict(meta.get("documents", {}))
        wanted = {d.document_id: _fingerprint(layout, config, d.document_id) for d in documents}
        stored = store.document_ids()
        removed = [doc for doc in set(known) | stored if doc not in wanted]
        changed = [d for d in documents if known.get(d.document_id) != wanted[d.document_id]]
        # Only what the store holds is deleted: a fresh index deletes nothing.
        for document_id in removed + [d.document_id for d in changed if d.document_id in stored]:
            store.delete_document(document_id)
            known.pop(document_id, None)
        batch: list[VectorPoint] = []
        for position, document in enumerate(changed, 1):
            chunk_ids, pieces, vectors = load_document_embeddings(layout, config, document.document_id)
            batch += [
                VectorPoint(c, document.document_id, int(p), v, year=document.year, authors=document.authors)
                for c, p, v in zip(chunk_ids, pieces, vectors)
            ]
            if len(batch) >= UPSERT_POINTS or position == len(changed):  # one write and flush per batch
                store.upsert(batch)
                batch = []
        known.update((d.document_id, wanted[d.document_id]) for d in changed)
        updated = len(changed)
        store.set_meta(vector_meta(config, dimension, signature, known))
        stats = {
            "documents": len(documents),
            "updated": updated,
            "removed": len(removed),
            "points": store.count_points(),
        }
    finally:
        store.close()
    if generation is not None:
        promote_generation(edge_root(layout, config), generation)
    return stats
