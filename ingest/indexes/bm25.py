"""BM25 index (bm25s): files named by the corpus signature, with a manifest checked on load.

`write_bm25` is the one place passages become BM25 rows (title + section path + text), used by
the pipeline and by evaluation's scratch indexes.
"""

from __future__ import annotations

from collections.abc import Iterable

from corpus.config import ServedConfig
from corpus.indexes.bm25_store import BM25Index, StaleIndexError, build_bm25, indexed_text
from corpus.models import Passage
from corpus.state.layout import StateLayout
from corpus.state.signature import recorded_signature
from ingest.indexes.corpus_view import indexed_documents


def bm25_rows(titled: Iterable[tuple[str | None, Passage]]) -> list[tuple[str, str, str]]:
    """(chunk_id, document_id, indexed text) of (document title, passage) pairs."""
    return [(p.chunk_id, p.document_id, indexed_text(title, p.section, p.text)) for title, p in titled]


def write_bm25(
    layout: StateLayout, config: ServedConfig, signature: str, titled: Iterable[tuple[str | None, Passage]]
) -> int:
    """Index (document title, passage) pairs for `signature`; returns the document count."""
    rows = bm25_rows(titled)
    build_bm25(layout.bm25, signature, rows, config.bm25_k1, config.bm25_b, config.analyzer)
    return len(rows)


def build_bm25_index(layout: StateLayout, config: ServedConfig) -> dict[str, int | str]:
    """Build the index for the recorded signature unless a valid one exists already."""
    signature = recorded_signature(layout)
    if signature is None:
        raise RuntimeError("no corpus signature recorded: materialise corpus_signature first")
    try:
        index = BM25Index.load(layout.bm25, signature, config.analyzer, k1=config.bm25_k1, b=config.bm25_b)
        return {"signature": signature, "documents": index.doc_count, "rebuilt": 0}
    except StaleIndexError:
        pass
    count = write_bm25(layout, config, signature, ((d.title, p) for d in indexed_documents(layout) for p in d.passages))
    return {"signature": signature, "documents": count, "rebuilt": 1}
