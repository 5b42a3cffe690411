"""Index parts of benchmarks/scale.py: builds, BM25 mmap, passage lookups, HNSW recall vs exact."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from harness import percentiles_ms, rss_mb, timed

TOP = 10
HNSW_CONFIG = "hnsw"
# The synthetic clones are noisy copies (cosine ≈ 0.92 between two of them), so at 1M a question's
# exact top 10 are near-ties among hundreds of clones: besides recall of the exact ids, count a hit
# that is at most this much less similar than the exact 10th.
SCORE_TOLERANCE = 0.005
# Search settings (HNSW beam, int8 oversampling) measured besides the served ones
# (corpus.vectors.vector_store_base.hnsw_search_settings), unfiltered only.
SWEEP = (
    (256, 0.0),
    (512, 0.0),
    (1024, 0.0),
    (2048, 0.0),
    (256, 1.0),
    (512, 1.0),
    (1024, 1.0),
    (2048, 1.0),
    (512, 2.0),
    (1024, 2.0),
    (256, 4.0),
    (512, 4.0),
    (1024, 8.0),
    (2048, 16.0),
    (4096, 32.0),
)


def bm25_figures(rows: list[tuple[str, str, str]], texts: list[str], scratch: Path, analyzer=None) -> dict:
    """Build over `rows`, then load (read / mmap) and query each way."""
    from corpus.config import ServedConfig
    from corpus.indexes.bm25_store import build_bm25

    config = ServedConfig.from_env()
    _, build_s = timed(
        build_bm25, scratch / "bm25", "scale", rows, config.bm25_k1, config.bm25_b, analyzer or config.analyzer
    )
    return {"bm25_build_s": round(build_s, 2), **bm25_load_figures(scratch / "bm25", "scale", texts)}


def bm25_load_figures(folder: Path, signature: str, texts: list[str]) -> dict:
    from corpus.config import ServedConfig
    from corpus.indexes.bm25_store import BM25Index

    config = ServedConfig.from_env()
    out = {"bm25_files_mb": round(sum(p.stat().st_size for p in (folder / signature).iterdir()) / 1e6)}
    for mmap in (False, True):
        before = rss_mb()
        index, load_s = timed(BM25Index.load, folder, signature, config.analyzer, mmap=mmap)
        times, scoring, full_sort, same = [], [], [], 0
        for text in texts:
            start = time.perf_counter()
            found = index.search(text, 50)
            times.append(time.perf_counter() - start)
            if mmap:
                continue
            start = time.perf_counter()  # the scoring alone, then what search did before top_k
            scores = index.scores(text)
            scoring.append(time.perf_counter() - start)
            candidates = np.flatnonzero(scores > 0)
            ranked = candidates[np.argsort(-scores[candidates], kind="stable")][:50]
            full_sort.append(time.perf_counter() - start)
            same += found == [(index.chunk_ids[i], float(scores[i])) for i in ranked]
        label = "mmap" if mmap else "read"
        out[f"bm25_{label}"] = {
            "load_s": round(load_s, 2),
            "rss_added_mb": round(rss_mb() - before),
            "query_ms": percentiles_ms(times),
        }
        if not mmap:
            out["bm25_read"].update(
                {
                    "scoring_ms": percentiles_ms(scoring),
                    "scoring_and_full_sort_ms": percentiles_ms(full_sort),
                    "same_top50_as_full_sort": f"{same}/{len(texts)}",
                }
            )
        del index
    return out


def store_figures(passages: list, scratch: Path) -> dict:
    """Write the passage store, then cold point lookups and whole-document reads."""
    from corpus.indexes.passage_store import PassageStore, write_passage_store

    path = scratch / "passages.sqlite"
    count, build_s = timed(write_passage_store, path, "scale", passages)
    store = PassageStore(path)
    rng = np.random.default_rng(5)
    picks = [passages[i] for i in rng.choice(len(passages), min(300, len(passages)), replace=False)]
    lookup, document = [], []
    for passage in picks:
        start = time.perf_counter()
        store.get(passage.chunk_id)
        lookup.append(time.perf_counter() - start)
        start = time.perf_counter()
        store.of_document(passage.document_id)
        document.append(time.perf_counter() - start)
    return {
        "store_passages": count,
        "store_build_s": round(build_s, 2),
        "store_file_mb": round(path.stat().st_size / 1e6),
        "store_get_ms": percentiles_ms(lookup),
        "store_document_ms": percentiles_ms(document),
    }


def vector_figures(arrays: dict[str, np.ndarray], queries: np.ndarray, scratch: Path, hnsw: bool = True) -> dict:
    """Exact scan (the in-memory reader) vs Edge HNSW + int8, built here from the same points."""
    from corpus.vectors.vector_store_base import VectorPoint, hnsw_search_settings
    from corpus.vectors.vector_store_edge import EdgeVectorStore
    from corpus.vectors.vector_store_memory import MemoryVectorStore

    dimension = arrays["vectors"].shape[1]
    exact = MemoryVectorStore(arrays, dimension, {}, "edge", "scale")
    if not hnsw:
        return exact_figures(exact, arrays["years"], queries)
    chunks, documents, years = arrays["chunks"], arrays["documents"], arrays["years"]
    edge = EdgeVectorStore(scratch / "hnsw", dimension, index=HNSW_CONFIG)
    start = time.perf_counter()
    step = 4096
    for first in range(0, len(years), step):
        rows = range(first, min(first + step, len(years)))
        edge.upsert(
            [
                VectorPoint(
                    str(chunks[arrays["chunk_index"][i]]),
                    str(documents[arrays["document_index"][i]]),
                    int(arrays["pieces"][i]),
                    arrays["vectors"][i],
                    None if years[i] < 0 else int(years[i]),
                )
                for i in rows
            ]
        )
    upsert_s = time.perf_counter() - start
    _, close_s = timed(edge.close)  # optimize: the graph and the int8 codes
    reader = EdgeVectorStore(scratch / "hnsw", dimension, read_only=True)
    dated = years[years > 0]
    low = int(np.percentile(dated, 40))
    out = {
        "points": int(len(years)),
        "hnsw_upsert_s": round(upsert_s, 1),
        "hnsw_index_build_s": round(close_s, 1),
        "hnsw_files_mb": round(sum(p.stat().st_size for p in (scratch / "hnsw").rglob("*") if p.is_file()) / 1e6),
        "exact_matrix_mb": round(exact.nbytes / 1e6),
    }
    served = hnsw_search_settings(reader.count_points())
    for label, scope in (("none", {}), (f"years {low}-{low + 4}", {"year_min": low, "year_max": low + 4})):
        exact_t, wanted = [], []
        for query in queries:
            start = time.perf_counter()
            wanted.append(exact.search(query, TOP, **scope))
            exact_t.append(time.perf_counter() - start)
        for ef, oversampling in (served, *([s for s in SWEEP if s != served] if not scope else [])):
            reader.search_settings = (ef, oversampling)
            key = f"filter {label}" + (
                "" if (ef, oversampling) == served else f", ef {ef}, oversampling {oversampling:g}"
            )
            out[key] = {**_hnsw_recall(reader, queries, wanted, scope), "exact_ms": percentiles_ms(exact_t)}
    reader.close()
    return out


def _hnsw_recall(reader, queries: np.ndarray, wanted: list, scope: dict) -> dict:
    """Recall of the HNSW reader's top 10 against the exact ones (`wanted`), and its latency."""
    recalls, tolerant, gaps, hnsw_t = [], [], [], []
    for query, want in zip(queries, wanted):
        start = time.perf_counter()
        got = reader.search(query, TOP, **scope)  # rescored: float32 cosines, as the exact ones
        hnsw_t.append(time.perf_counter() - start)
        recalls.append(len({c for c, _ in got} & {c for c, _ in want}) / max(1, len(want)))
        if want:  # clones are near-ties: a hit as similar as the exact k-th is as good an answer
            tolerant.append(sum(s >= want[-1][1] - SCORE_TOLERANCE for _, s in got) / len(want))
            gaps.append(float(np.mean([s for _, s in want]) - np.mean([s for _, s in got] or [0.0])))
    return {
        "recall@10": round(float(np.mean(recalls)), 4),
        "min_recall": round(float(np.min(recalls)), 2),
        f"recall@10 within {SCORE_TOLERANCE} of the exact 10th": round(float(np.mean(tolerant)), 4),
        "mean cosine lost vs exact top 10": round(float(np.mean(gaps)), 5),
        "hnsw_ms": percentiles_ms(hnsw_t),
    }


def exact_figures(exact, years: np.ndarray, queries: np.ndarray) -> dict:
    """The exact scan alone (the HNSW build at this size does not fit the run)."""
    low = int(np.percentile(years[years > 0], 40))
    out = {"points": int(len(years)), "exact_matrix_mb": round(exact.nbytes / 1e6)}
    for label, scope in (("none", {}), (f"years {low}-{low + 4}", {"year_min": low, "year_max": low + 4})):
        times = []
        for query in queries:
            start = time.perf_counter()
            exact.search(query, TOP, **scope)
            times.append(time.perf_counter() - start)
        out[f"filter {label}"] = {"exact_ms": percentiles_ms(times)}
    return out


def _embed(texts: list[str], layout) -> np.ndarray:
    from corpus.config import ServedConfig
    from corpus.encoding.query_encoder import load_query_encoder

    encoder = load_query_encoder(ServedConfig.from_env(), layout)
    return np.stack([encoder.embed_query(t) for t in texts])


def state_points(generation: Path, dimension: int) -> dict[str, np.ndarray]:
    """The generation's points as MemoryVectorStore arrays: its snapshot (an exact state) or, for
    an hnsw state (read in place, so written without one), scrolled from the shard read-only."""
    from corpus.vectors.vector_store_edge import EdgeVectorStore
    from corpus.vectors.vector_store_memory import SNAPSHOT_FILE, read_snapshot, to_arrays

    if (generation / SNAPSHOT_FILE).exists():
        return read_snapshot(generation / SNAPSHOT_FILE)
    store = EdgeVectorStore(generation, dimension, read_only=True)
    try:
        return to_arrays(store.records(), dimension)
    finally:
        store.close()


def measure_state(home: Path, texts: list[str], work: Path) -> dict:
    """Index figures over a built state's own passages and vectors (the state is only read). BM25:
    the state's own build, loaded both ways (its build time is the bm25_index step's). The HNSW
    generation is left in `work`/hnsw for `serve --vectors`; delete it after."""
    from corpus.config import ServedConfig
    from corpus.reading.published import open_published
    from corpus.state.generations import current_generation
    from corpus.state.layout import StateLayout
    from corpus.state.signature import recorded_signature
    from corpus.vectors.vector_store import edge_root
    from ingest.indexes.corpus_view import indexed_documents

    view = open_published(StateLayout(home))
    layout = view.layout
    documents, load_s = timed(indexed_documents, layout)
    passages = [p for d in documents for p in d.passages]
    out = {"passages": len(passages), "documents": len(documents), "read_passage_files_s": round(load_s, 2)}
    work.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="scale-", dir=work) as scratch:
        out.update(store_figures(passages, Path(scratch)))
    del documents, passages
    out.update(bm25_load_figures(layout.bm25, recorded_signature(layout), texts))
    queries = _embed(texts, layout)
    arrays = state_points(current_generation(edge_root(layout, ServedConfig.from_env())), queries.shape[1])
    shutil.rmtree(work / "hnsw", ignore_errors=True)
    out.update(vector_figures(arrays, queries, work))
    view.close()
    return out


def measure_components(source: Path, passages: int, work: Path, texts: list[str], skip: set[str]) -> dict:
    from scale_clone import cloned_components

    work.mkdir(parents=True, exist_ok=True)
    try:
        parts, clone_s = timed(cloned_components, source, passages)
        out = {"passages": len(parts["passages"]), "clone_in_memory_s": round(clone_s, 2)}
        print("progress", out, flush=True)  # a long run says where it is
        if "store" not in skip:
            out.update(store_figures(parts["passages"], work))
            print("progress", out, flush=True)
        if "bm25" in skip:
            out["bm25"] = "skipped"
        else:
            out.update(bm25_figures(parts["rows"], texts, work, parts["analyzer"]))
            print("progress", out, flush=True)
        parts["passages"] = parts["rows"] = parts["analyzer"] = None
        from corpus.reading.published import open_published
        from corpus.state.layout import StateLayout

        view = open_published(StateLayout(source))
        if "vectors" not in skip:
            out.update(vector_figures(parts["arrays"], _embed(texts, view.layout), work, hnsw="hnsw" not in skip))
        view.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out
