"""Recall@10 of a state's own HNSW index against the exact scan of the same points, on real questions.

    QUANT_RAG_VECTOR_INDEX=hnsw python benchmarks/scale_recall.py --home S [--sweep]

The questions are the library's and the vignettes' development questions, embedded as the server
embeds them. The exact top 10 come from every piece vector the index was built from (each
document's embeddings file), scanned in memory; the HNSW top 10 from the generation read as the
server reads it, with the served search
settings (corpus.vectors.vector_store_base.hnsw_search_settings) and, with --sweep, others. Both
unfiltered and with a 5-year filter.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import harness  # noqa: E402
import numpy as np  # noqa: E402
from scale_indexes import SWEEP, _embed, _hnsw_recall  # noqa: E402

QUESTION_SETS = ("library_dev.jsonl", "vignettes_dev.jsonl")
QUESTIONS = Path(__file__).resolve().parents[1] / "evaluation" / "questions"
TOP = 10


def questions() -> list[str]:
    rows = []
    for name in QUESTION_SETS:
        rows += [json.loads(line)["question"] for line in (QUESTIONS / name).read_text().splitlines() if line.strip()]
    return rows


def embedded_points(layout, config) -> dict[str, np.ndarray]:
    """Every piece vector the index was built from (each document's embeddings file), as the
    arrays of an in-memory exact store: read file by file, never as a Python object per point."""
    from corpus.vectors.vector_store_memory import NO_YEAR
    from ingest.indexes.corpus_view import indexed_documents
    from ingest.indexes.embed import load_document_embeddings

    chunks, pieces, vectors, years, documents, document_index = [], [], [], [], [], []
    for number, document in enumerate(indexed_documents(layout)):
        if not layout.embeddings(document.document_id, config.model_key).exists():
            continue
        chunk_ids, piece, vector = load_document_embeddings(layout, config, document.document_id)
        chunks.append(np.asarray(chunk_ids))
        pieces.append(np.asarray(piece, dtype=np.int32))
        vectors.append(np.asarray(vector, dtype=np.float32))
        years.append(np.full(len(piece), NO_YEAR if document.year is None else document.year, dtype=np.int32))
        documents.append(document.document_id)
        document_index.append(np.full(len(piece), len(documents) - 1, dtype=np.int32))
    every_chunk = np.concatenate(chunks)
    unique, chunk_index = np.unique(every_chunk, return_inverse=True)
    return {
        "vectors": np.concatenate(vectors),
        "chunks": unique,
        "chunk_index": chunk_index.astype(np.int32),
        "documents": np.asarray(documents),
        "document_index": np.concatenate(document_index),
        "pieces": np.concatenate(pieces),
        "years": np.concatenate(years),
        "stamp": np.asarray(""),
    }


def measure(home: Path, sweep: bool) -> dict:
    from corpus.config import ServedConfig
    from corpus.reading.published import open_published
    from corpus.state.generations import current_generation
    from corpus.state.layout import StateLayout
    from corpus.vectors.vector_store import edge_root
    from corpus.vectors.vector_store_base import hnsw_search_settings
    from corpus.vectors.vector_store_edge import EdgeVectorStore
    from corpus.vectors.vector_store_memory import MemoryVectorStore

    view = open_published(StateLayout(home))
    texts = questions()
    queries = _embed(texts, view.layout)
    generation = current_generation(edge_root(view.layout, ServedConfig.from_env()))
    arrays, points_s = harness.timed(embedded_points, StateLayout(home), ServedConfig.from_env())
    exact = MemoryVectorStore(arrays, queries.shape[1], {}, "edge", "scale")
    years = arrays["years"]
    low = int(np.percentile(years[years > 0], 40))
    reader = EdgeVectorStore(generation, queries.shape[1], read_only=True)
    served = hnsw_search_settings(reader.count_points())
    out: dict = {"points": int(len(years)), "questions": len(texts), "read_points_s": round(points_s, 1)}
    for label, scope in (("none", {}), (f"years {low}-{low + 4}", {"year_min": low, "year_max": low + 4})):
        wanted = [exact.search(query, TOP, **scope) for query in queries]
        for settings in (served, *([s for s in SWEEP if s != served] if sweep else [])):
            reader.search_settings = settings
            other = "" if settings == served else f", ef {settings[0]}, oversampling {settings[1]:g}"
            key = f"filter {label}{other}"
            out[key] = _hnsw_recall(reader, queries, wanted, scope)
    reader.close()
    view.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--home", type=Path, required=True, help="an hnsw state (read only)")
    parser.add_argument("--sweep", action="store_true", help="also the other search settings (unfiltered)")
    args = parser.parse_args(argv)
    figures = measure(args.home, args.sweep)
    lines = [f"{k}: {v}" for k, v in figures.items()]
    harness.emit(args, figures, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
