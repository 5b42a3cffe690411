"""Build the token index (corpus.indexes.token_index) of the recorded signature.

Every passage is cut into the same pieces its vectors embed (ingest.indexes.embed.passage_texts); each
piece's token vectors come from the token graph (corpus.encoding.token_encoder), quantised to int8 and
cached by (weights, exact piece text) like the vectors (corpus.encoding.token_cache). Ingestion's float32
embedding pass fills that cache as it embeds (corpus.encoding.onnx_export.ingest_runtime): the same model
run gives both, so here only pieces embedded before, or on another runtime, reach the model.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from corpus.config import ServedConfig
from corpus.encoding.token_cache import TokenCache
from corpus.ids import sha256_hex
from corpus.indexes.passage_store import LARGE_STATE_PASSAGES
from corpus.indexes.token_index import TokenIndex, index_path, write_token_index
from corpus.indexes.token_product import GRAPH_FILE, write_product_graph
from corpus.state.layout import StateLayout
from corpus.state.signature import recorded_signature
from ingest.indexes.corpus_view import IndexedDocument, indexed_documents

log = logging.getLogger(__name__)

# Pieces sent to the model per call (bounds memory: 256 tokens × 384 floats each).
BATCH_PIECES = 512


def build_token_index(
    layout: StateLayout, config: ServedConfig, progress: Callable[[int, int], None] | None = None
) -> dict[str, int | str]:
    """Write the index for the recorded signature unless it exists; drop the working state's
    indexes of other signatures (a published generation keeps its own by a hard link)."""
    signature = recorded_signature(layout)
    if signature is None:
        raise RuntimeError("no corpus signature recorded: materialise corpus_signature first")
    key = config.weights_key
    path = index_path(layout, key, signature)
    stats: dict[str, int | str] = {"signature": signature, "rebuilt": 0, "computed_pieces": 0}
    existing = TokenIndex.for_state(layout, key, signature)
    documents = indexed_documents(layout) if existing is None else []
    passages = sum(len(d.passages) for d in documents)
    if passages >= LARGE_STATE_PASSAGES:
        # Token rows grow with every passage (docs/DESIGN.md §9): a large state is served without
        # late interaction (the engine keeps the fused order and says so).
        log.warning("%d passages: no token index from %d on", passages, LARGE_STATE_PASSAGES)
        stats.update(passages=passages, reason=f"no token index for a state of {LARGE_STATE_PASSAGES:,}+ passages")
    elif existing is not None:
        stats.update(passages=len(existing.spans), tokens=int(existing.codes.shape[0]))
        if existing.product is None:  # an index written before its integer product existed
            write_product_graph(path / GRAPH_FILE)
    else:
        stats.update(_write(layout, config, documents, path, signature, progress), rebuilt=1)
    for other in layout.token_indexes.glob("*"):
        if other.is_dir() and other.name != path.name:
            shutil.rmtree(other, ignore_errors=True)
    return stats


def _write(
    layout: StateLayout,
    config: ServedConfig,
    documents: list[IndexedDocument],
    path: Path,
    signature: str,
    progress: Callable[[int, int], None] | None,
) -> dict[str, int]:
    from corpus.encoding.embedder import load_embedder, model_folder
    from corpus.encoding.onnx_export import INGEST_THREADS, ensure_token_graph
    from corpus.encoding.token_encoder import load_token_encoder
    from ingest.indexes.embed import passage_texts

    if ensure_token_graph(layout, config) is None:
        raise RuntimeError(f"{config.embedding_model} is not a plain mean-pooling model: no token graph")
    encoder = load_token_encoder(layout, config, model_folder(config), None, threads=INGEST_THREADS)
    if encoder is None:  # exported just above: gone only if something removed it since
        raise RuntimeError(f"the token graph of {config.embedding_model} is missing right after its export")
    embedder, cache = load_embedder(config), TokenCache(layout, config.weights_key)
    computed = 0

    def rows() -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
        """Document by document (memory holds one document's rows), pieces in passage order."""
        nonlocal computed
        for number, document in enumerate(documents, start=1):
            owners, texts = passage_texts(embedder, ((document.title, p) for p in document.passages))
            found = cache.get_many(texts)
            missing = [t for t in dict.fromkeys(texts) if sha256_hex(t) not in found]
            for start in range(0, len(missing), BATCH_PIECES):
                cache.put_many(
                    missing[start : start + BATCH_PIECES], encoder.passage_tokens(missing[start : start + BATCH_PIECES])
                )
            if missing:
                found, computed = cache.get_many(texts), computed + len(missing)
            parts: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
            for (passage, _), text in zip(owners, texts):
                parts.setdefault(passage.chunk_id, []).append(found[sha256_hex(text)])
            for chunk_id, pieces in parts.items():
                yield chunk_id, np.concatenate([c for c, _ in pieces]), np.concatenate([s for _, s in pieces])
            if progress is not None:
                progress(number, len(documents))

    written = write_token_index(path, signature, config.weights_key, rows())
    return {**written, "computed_pieces": computed}


def token_index_signature(layout: StateLayout, config: ServedConfig) -> str | None:
    """The signature of the token index for the recorded signature, None when there is none."""
    index = TokenIndex.for_state(layout, config.weights_key, recorded_signature(layout))
    return None if index is None else index.signature
