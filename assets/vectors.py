"""Vector index asset: Qdrant (embedded by default, a server by URL), updated per document."""


import dagster as dg

from assets.corpus_view import indexed_documents
from assets.embed import embeddings_path, load_document_embeddings
from assets.resources import StateResource
from corpus.config import ServedConfig
from corpus.ids import sha256_hex
from corpus.signature import recorded_signature
from corpus.state import StateLayout
from corpus.generations import begin_generation, promote_generation
from corpus.vector_store import VectorPoint, edge_root, open_vector_store


def _fingerprint(layout: StateLayout, config: ServedConfig, document_id: str) -> str:
    return sha256_hex(embeddings_path(layout, config, document_id).read_bytes())[:16]


def sync_vector_index(layout: StateLayout, config: ServedConfig, dimension: int) -> dict[str, int]:
    """Upsert changed documents, delete removed ones; untouched documents are not rewritten."""
    signature = recorded_signature(layout)
    documents = [d for d in indexed_documents(layout) if embeddings_path(layout, config, d.document_id).exists()]
    # Edge: update a copy and promote it, so a running server keeps its generation open.
    edge = config.vector_backend == "edge"
    generation = begin_generation(edge_root(layout, config)) if edge else None
    store = open_vector_store(layout, config, dimension, generation=generation)
    try:
        meta = store.get_meta()
        known: dict[str, str] = dict(meta.get("documents", {}))
        wanted = {d.document_id: _fingerprint(layout, config, d.document_id) for d in documents}
        removed = [doc for doc in set(known) | store.document_ids() if doc not in wanted]
        for document_id in removed:
            store.delete_document(document_id)
            known.pop(document_id, None)
        updated = 0
        for document in documents:
            if known.get(document.document_id) == wanted[document.document_id]:
                continue
            store.delete_document(document.document_id)
            chunk_ids, pieces, vectors = load_document_embeddings(layout, config, document.document_id)
            store.upsert([VectorPoint(chunk_id=c, document_id=document.document_id, piece=int(p), vector=v,
                                      year=document.year, authors=document.authors)
                          for c, p, v in zip(chunk_ids, pieces, vectors)])
            known[document.document_id] = wanted[document.document_id]
            updated += 1
        store.set_meta({"model_id": config.embedding_model, "model_key": config.model_key,
                        "dimension": dimension, "signature": signature, "documents": known})
        stats = {"documents": len(documents), "updated": updated, "removed": len(removed),
                 "points": store.count_points()}
    finally:
        store.close()
    if generation is not None:
        promote_generation(edge_root(layout, config), generation)
    return stats


@dg.asset(deps=["passage_embeddings", "corpus_signature"], group_name="indexes", code_version="vectors-v1",
          description="Qdrant collection of passage pieces with document_id/year/authors payload; records the signature.")
def vector_index(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    from corpus.embedder import load_embedder
    from corpus.onnx_export import ensure_exported
    config = state.config
    stats = sync_vector_index(state.layout, config, load_embedder(config).dimension)
    try:  # the server's torch-free query encoder; without it the server falls back, so never fatal
        stats["query_encoder"] = str(ensure_exported(state.layout, config) or "transformers")
    except Exception as exc:  # noqa: BLE001 — an export failure must not block indexing
        context.log.warning(f"ONNX export failed ({exc}); the server will embed queries with transformers")
        stats["query_encoder"] = "transformers"
    return dg.MaterializeResult(metadata={**stats, "backend": config.vector_backend,
                                          "signature": recorded_signature(state.layout) or ""})
