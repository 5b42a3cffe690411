"""Corpus-wide asset checks: whole passages, anchors, metadata coverage, index coherence."""


import numpy as np
import dagster as dg

from assets.corpus_view import indexed_documents
from assets.embed import embeddings_path, load_document_embeddings
from assets.integrity import anchor_mismatches, forbidden_cuts
from assets.resources import StateResource
from corpus.bm25_store import BM25Index, StaleIndexError
from corpus.graph_store import GraphStore
from corpus.signature import compute_signature, recorded_signature
from corpus.state import StateLayout
from corpus.vector_store import open_vector_store

MIN_TITLE_COVERAGE = 1.0   # every document needs a title to be citable
MIN_YEAR_COVERAGE = 0.9
BRUTE_FORCE_SAMPLE = 20
BRUTE_FORCE_DEPTH = 50


def _open_store(layout: StateLayout, config):
    from corpus.embedder import load_embedder  # cached per process: the pipeline has loaded it
    return open_vector_store(layout, config, load_embedder(config).dimension, read_only=True)


def _materialised(layout: StateLayout) -> list[str]:
    return [d.document_id for d in indexed_documents(layout)]


@dg.asset_check(asset="catalogue", description="No passage boundary falls inside a word, formula, table row or code fence.")
def passages_whole(state: StateResource) -> dg.AssetCheckResult:
    problems = forbidden_cuts(state.layout, _materialised(state.layout))
    return dg.AssetCheckResult(passed=not problems, metadata={"violations": len(problems), "examples": problems[:5]})


@dg.asset_check(asset="catalogue", description="canonical[start:end] == passage text for every exact anchor.")
def anchors_round_trip(state: StateResource) -> dg.AssetCheckResult:
    bad = anchor_mismatches(state.layout, _materialised(state.layout))
    return dg.AssetCheckResult(passed=not bad, metadata={"mismatches": len(bad), "examples": bad[:5]})


@dg.asset_check(asset="catalogue", description="Every document has a title; most have a year.")
def metadata_coverage(state: StateResource) -> dg.AssetCheckResult:
    documents = indexed_documents(state.layout)
    n = max(len(documents), 1)
    titles = sum(1 for d in documents if d.title) / n
    years = sum(1 for d in documents if d.year) / n
    authors = sum(1 for d in documents if d.authors) / n
    return dg.AssetCheckResult(passed=titles >= MIN_TITLE_COVERAGE and years >= MIN_YEAR_COVERAGE,
                               metadata={"title": titles, "year": years, "authors": authors, "documents": len(documents)})


def index_counts(layout: StateLayout, config) -> dict[str, int]:
    passages = sum(len(d.passages) for d in indexed_documents(layout))
    store = _open_store(layout, config)
    try:
        vector_chunks = len(store.chunk_ids())
    finally:
        store.close()
    try:
        bm25_docs = BM25Index.load(layout.bm25, recorded_signature(layout) or "").doc_count
    except StaleIndexError:
        bm25_docs = -1
    return {"passages": passages, "vector_chunks": vector_chunks, "bm25_documents": bm25_docs}


@dg.asset_check(asset="vector_index", additional_deps=["bm25_index"],
                description="Passages with vectors = passage count = BM25 document count.")
def index_counts_agree(state: StateResource) -> dg.AssetCheckResult:
    counts = index_counts(state.layout, state.config)
    return dg.AssetCheckResult(passed=len(set(counts.values())) == 1, metadata=counts)


def index_signatures(layout: StateLayout, config) -> dict[str, str | None]:
    store = _open_store(layout, config)
    try:
        vectors = store.get_meta().get("signature")
    finally:
        store.close()
    recorded = recorded_signature(layout)
    try:
        bm25 = BM25Index.load(layout.bm25, recorded or "").signature
    except StaleIndexError:
        bm25 = None
    graph = GraphStore.open(layout.graph).signature if layout.graph.exists() else None
    return {"live": compute_signature(layout), "recorded": recorded, "vector_index": vectors,
            "bm25_index": bm25, "entity_graph": graph}


@dg.asset_check(asset="vector_index", additional_deps=["bm25_index", "entity_graph"],
                description="Every index carries the live corpus signature.")
def signatures_coherent(state: StateResource) -> dg.AssetCheckResult:
    signatures = index_signatures(state.layout, state.config)
    return dg.AssetCheckResult(passed=len(set(signatures.values())) == 1 and None not in signatures.values(),
                               metadata={k: v or "missing" for k, v in signatures.items()})


def brute_force_agreement(layout: StateLayout, config, sample: int = BRUTE_FORCE_SAMPLE,
                          depth: int = BRUTE_FORCE_DEPTH) -> dict:
    """Qdrant's top-`depth` vs an in-memory max-over-pieces matrix, for stored piece vectors as queries."""
    chunk_ids, documents, matrix = [], [], []
    for document in indexed_documents(layout):
        if embeddings_path(layout, config, document.document_id).exists():
            ids, _, vectors = load_document_embeddings(layout, config, document.document_id)
            chunk_ids += ids
            matrix.append(vectors)
    if not chunk_ids:
        return {"queries": 0, "disagreements": 0}
    matrix = np.concatenate(matrix)
    rng = np.random.default_rng(7)
    queries = matrix[rng.choice(len(matrix), size=min(sample, len(matrix)), replace=False)]
    queries = queries + rng.normal(0, 0.05, queries.shape).astype(np.float32)  # not exactly a stored point
    store = _open_store(layout, config)
    disagreements = 0
    try:
        for query in queries:
            scores = matrix @ (query / np.linalg.norm(query))
            best: dict[str, float] = {}
            for chunk_id, score in zip(chunk_ids, scores):
                best[chunk_id] = max(best.get(chunk_id, -2.0), float(score))
            expected = [c for c, _ in sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))[:depth]]
            served = [c for c, _ in store.search(query, depth)]
            disagreements += expected != served
    finally:
        store.close()
    return {"queries": len(queries), "disagreements": disagreements}


@dg.asset_check(asset="vector_index", description="Qdrant's top-50 equals a brute-force matrix's, in order.")
def dense_matches_brute_force(state: StateResource) -> dg.AssetCheckResult:
    result = brute_force_agreement(state.layout, state.config)
    return dg.AssetCheckResult(passed=result["disagreements"] == 0, metadata=result)


CORPUS_CHECKS = [passages_whole, anchors_round_trip, metadata_coverage, index_counts_agree,
                 signatures_coherent, dense_matches_brute_force]
