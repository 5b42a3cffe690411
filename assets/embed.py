"""Embedding stage asset: passage vectors per document, cached by text hash and model id."""

import dagster as dg
from tqdm import tqdm

from assets.partitions import document_asset
from assets.progress import per_document
from assets.resources import StateResource
from corpus.encoding.embedder import load_embedder
from corpus.encoding.embedding_cache import EmbeddingCache
from corpus.encoding.onnx_export import ingest_runtime
from ingest.indexes.embed import DocumentPieces, embed_document, prefill
from ingest.sources.setaside import live


@document_asset(
    deps=["passages", "document_metadata"],
    group_name="documents",
    code_version="embed-v1",
    description="Passage vectors (several pieces per long passage), cached by text hash and model id.",
)
def passage_embeddings(context: dg.AssetExecutionContext, state: StateResource) -> dg.MaterializeResult:
    layout, config = state.layout, state.config
    embedder = load_embedder(config)  # outside the loop: a model that cannot load fails the run, not a document
    cache = EmbeddingCache(layout.embedding_cache, config.model_key)
    keys = live(layout, list(context.partition_keys))
    prepared: dict[str, DocumentPieces] = {}
    covered: set[str] = set()

    def embed(document_id: str) -> dict:
        if document_id not in covered:  # the next documents' pieces, embedded together (ingest.indexes.embed.prefill)
            with tqdm(desc="embed pieces", unit="piece", leave=False, disable=None) as bar:

                def progress(done: int, total: int) -> None:
                    bar.total = total
                    bar.update(done - bar.n)

                found, block = prefill(layout, embedder, cache, keys[keys.index(document_id) :], progress)
            prepared.update(found)
            covered.update(block)
        total, fresh = embed_document(layout, config, embedder, cache, document_id, prepared.pop(document_id, None))
        return {"pieces": total, "embedded_now": fresh, "from_cache": total - fresh}

    with ingest_runtime(embedder, layout, config) as runtime:
        per_document(context, layout, "embed", embed)
    return dg.MaterializeResult(metadata={"model": embedder.model_id, "runtime": runtime})
