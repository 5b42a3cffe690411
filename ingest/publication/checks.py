"""What the corpus-wide checks measure: metadata coverage, index counts and signatures, and the
vector store against a brute-force search. The asset checks (assets/checks.py) judge the figures."""

from __future__ import annotations

import numpy as np

from corpus.graph.graph_store import GraphStore
from corpus.indexes.bm25_store import BM25Index, StaleIndexError
from corpus.state.layout import StateLayout
from corpus.state.signature import compute_signature, recorded_signature
from corpus.vectors.vector_store import open_vector_store
from ingest.indexes.corpus_view import indexed_documents
from ingest.indexes.embed import load_document_embeddings
from ingest.indexes.passage_store import passage_store_signature
from ingest.sources.register import load_source

BRUTE_FORCE_SAMPLE = 20
BRUTE_FORCE_DEPTH = 50
# Two passages whose scores differ by float32 rounding may come in either order: Qdrant and numpy
# round differently (an int8 library's fresh ingest met such a pair).
SCORE_TIE = 1e-6


def same_ranking(expected: list[str], served: list[str], score: dict[str, float]) -> bool:
    """The same list, except that passages whose scores tie (within SCORE_TIE) may swap places."""
    return len(expected) == len(served) and all(
        a == b or abs(score[a] - score.get(b, -2.0)) <= SCORE_TIE for a, b in zip(expected, served)
    )


def _open_store(layout: StateLayout, config):
    from corpus.encoding.embedder import load_embedder  # cached per process: the pipeline has loaded it

    return open_vector_store(layout, config, load_embedder(config).dimension, read_only=True)


def materialised(layout: StateLayout) -> list[str]:
    return [d.document_id for d in indexed_documents(layout)]


def metadata_coverage(layout: StateLayout) -> dict[str, float | int]:
    """Share of documents with a title, a year and authors."""
    documents = indexed_documents(layout)
    n = max(len(documents), 1)
    return {
        "title": sum(1 for d in documents if d.title) / n,
        "year": sum(1 for d in documents if d.year) / n,
        "authors": sum(1 for d in documents if d.authors) / n,
        "documents": len(documents),
    }


def missing_metadata(layout: StateLayout) -> dict[str, list[str]]:
    """{field: the file names (as registered) of the documents without it}, for title, year and
    authors, each list sorted."""
    missing: dict[str, list[str]] = {"title": [], "year": [], "authors": []}
    for document in indexed_documents(layout):
        name = load_source(layout, document.document_id)[0].original_name
        for key, value in (("title", document.title), ("year", document.year), ("authors", document.authors)):
            if not value:
                missing[key].append(name)
    return {key: sorted(names) for key, names in missing.items()}


def metadata_gaps(missing: dict[str, list[str]], documents: int, fields: tuple[str, ...], shown: int = 10) -> str:
    """'of 480 documents, 7 without a title: a.pdf, b.pdf, …; 30 without a year: …' for `fields`
    (the first `shown` names of each), or '' when none lacks any."""
    parts = []
    for key in fields:
        names = missing.get(key, [])
        if names:
            more = f" and {len(names) - shown} more" if len(names) > shown else ""
            article = "" if key == "authors" else "a "
            parts.append(f"{len(names)} without {article}{key}: {', '.join(names[:shown])}{more}")
    if not parts:
        return ""
    return f"of {documents} documents, " + "; ".join(parts)


def index_counts(layout: StateLayout, config) -> dict[str, int]:
    passages = sum(len(d.passages) for d in indexed_documents(layout))
    store = _open_store(layout, config)
    try:
        vector_chunks = len(store.chunk_ids())
    finally:
        store.close()
    try:
        bm25_docs = BM25Index.load(layout.bm25, recorded_signature(layout) or "", config.analyzer).doc_count
    except StaleIndexError:
        bm25_docs = -1
    return {"passages": passages, "vector_chunks": vector_chunks, "bm25_documents": bm25_docs}


def index_signatures(layout: StateLayout, config) -> dict[str, str | None]:
    store = _open_store(layout, config)
    try:
        vectors = store.get_meta().get("signature")
    finally:
        store.close()
    recorded = recorded_signature(layout)
    try:
        bm25 = BM25Index.load(layout.bm25, recorded or "", config.analyzer).signature
    except StaleIndexError:
        bm25 = None
    graph = GraphStore.open(layout.graph).signature if layout.graph.exists() else None
    return {
        "live": compute_signature(layout),
        "recorded": recorded,
        "vector_index": vectors,
        "bm25_index": bm25,
        "passage_store": passage_store_signature(layout),
        "entity_graph": graph,
    }


def brute_force_agreement(
    layout: StateLayout, config, sample: int = BRUTE_FORCE_SAMPLE, depth: int = BRUTE_FORCE_DEPTH
) -> dict:
    """Qdrant's top-`depth` vs an in-memory max-over-pieces matrix, for stored piece vectors as
    queries: a disagreement is a different list, ties apart (`same_ranking`)."""
    chunk_ids: list[str] = []
    per_document: list[np.ndarray] = []
    for document in indexed_documents(layout):
        if layout.embeddings(document.document_id, config.model_key).exists():
            ids, _, vectors = load_document_embeddings(layout, config, document.document_id)
            chunk_ids += ids
            per_document.append(vectors)
    if not chunk_ids:
        return {"queries": 0, "disagreements": 0, "recall_at_10": 1.0}
    matrix = np.concatenate(per_document)
    rng = np.random.default_rng(7)
    queries = matrix[rng.choice(len(matrix), size=min(sample, len(matrix)), replace=False)]
    queries = queries + rng.normal(0, 0.05, queries.shape).astype(np.float32)  # not exactly a stored point
    store = _open_store(layout, config)
    disagreements, found = 0, 0
    try:
        for query in queries:
            scores = matrix @ (query / np.linalg.norm(query))
            best: dict[str, float] = {}
            for chunk_id, score in zip(chunk_ids, scores):
                best[chunk_id] = max(best.get(chunk_id, -2.0), float(score))
            expected = [c for c, _ in sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))[:depth]]
            served = [c for c, _ in store.search(query, depth)]
            disagreements += not same_ranking(expected, served, best)
            found += len(set(expected[:10]) & set(served[:10]))
    finally:
        store.close()
    return {
        "queries": len(queries),
        "disagreements": disagreements,
        "recall_at_10": round(found / (10 * len(queries)), 4),
    }
