"""The 1M-passage path: search latency, memory, cold start, index builds and HNSW recall at scale.

    python benchmarks/synthetic_state.py --source var --target /tmp/scale-100k --passages 100000
    python benchmarks/scale.py serve --home /tmp/scale-100k            # engine: cold start, p50/p95, RSS
    QUANT_RAG_VECTOR_INDEX=hnsw python benchmarks/scale.py serve --home /tmp/scale-100k
    python benchmarks/scale.py indexes --home /tmp/scale-100k          # builds, BM25 mmap, recall
    python benchmarks/scale.py components --source var --passages 1000000 --work /tmp/scale-1m

`serve` spawns a fresh process per condition that opens the published state as the server does
(corpus.reading.published, serving.retrieval.engine.Engine) and runs the engine's hybrid retrieval (the server's
default mode; BM25 and dense over the real stores) on the library's dev questions: seconds from
spawn to the first answer, RSS after it and after every question, p50/p95 without a scope and
with a 5-year scope. `indexes` times the BM25 and passage-store builds over the state's passages,
BM25 loading with and without mmap, passage lookups, and the recall@10 of Edge's HNSW (+ int8)
against the exact scan on the dev questions, unfiltered and with the year filter. `components`
does the index parts for N passages cloned in memory (benchmarks/synthetic_state.py's texts and
vectors), for sizes whose state on disk would take hours to write.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import harness  # noqa: E402
from harness import percentiles_ms, rss_mb  # noqa: E402

QUESTIONS = Path(__file__).resolve().parents[1] / "evaluation" / "questions" / "library_dev.jsonl"
SCOPE_YEARS = (2005, 2009)


def questions(limit: int | None = None) -> list[str]:
    rows = [json.loads(line)["question"] for line in QUESTIONS.read_text().splitlines() if line.strip()]
    return rows[:limit]


def probe(home: Path, limit: int, vectors: Path | None, memory_passages: bool) -> None:
    """Child process: open as the server does, answer, print one JSON line. `vectors`: serve this
    Edge generation folder instead of the state's (the HNSW one `indexes` leaves in --work);
    `memory_passages`: read passages into memory even when the state has a passage store."""
    from serving.mcp.process import import_bm25s_without_scipy, single_threaded_blas, without_numba

    single_threaded_blas()  # the server's process settings (serving.mcp.server.serve and its warm-up)
    without_numba()
    import_bm25s_without_scipy()
    from corpus.config import ServedConfig
    from corpus.reading.published import open_published
    from corpus.state.layout import StateLayout
    from corpus.state.signature import recorded_signature
    from serving.retrieval.engine import Engine
    from serving.retrieval.scope import Scope

    if memory_passages:
        import corpus.reading.reader

        corpus.reading.reader.LARGE_STATE_PASSAGES = float("inf")
    view = open_published(StateLayout(home))
    config = ServedConfig.from_env()
    signature = recorded_signature(view.layout)
    engine = Engine(view.layout, config, signature=signature)
    if vectors is not None:  # the Edge generation folder `vectors` instead of the state's
        from corpus.vectors.vector_store_edge import EdgeVectorStore

        folder = EdgeVectorStore(vectors, engine.parts.embedder.dimension, read_only=True)
        engine = Engine(view.layout, config, signature=signature, embedder=engine.parts.embedder, vectors=folder)
    texts = questions(limit)
    engine.retrieve(texts[0], config.default_mode, Scope(), limit=10)
    first = {"first_answer_cpu_s": round(time.process_time(), 2), "rss_after_first_mb": round(rss_mb())}
    print("FIRST " + json.dumps(first), flush=True)
    out = {
        **first,
        "vector_store": type(engine.parts.vectors).__name__,
        "passages": type(engine.parts.reader.passages).__name__,
    }
    # The first pass reads the index pages from disk (page cache permitting); the second is warm.
    years = Scope(year_min=SCOPE_YEARS[0], year_max=SCOPE_YEARS[1])
    for label, scope in (("search", Scope()), ("search_second_pass", Scope()), ("search_years", years)):
        times, faults = [], resource.getrusage(resource.RUSAGE_SELF).ru_majflt
        for text in texts:
            start = time.perf_counter()
            engine.retrieve(text, config.default_mode, scope, limit=10)
            times.append(time.perf_counter() - start)
        out[f"{label}_ms"] = percentiles_ms(times)
        # pages read from the disk by the pass (memory-mapped index pages not in the page cache)
        out[f"{label}_major_faults"] = resource.getrusage(resource.RUSAGE_SELF).ru_majflt - faults
    stages: dict[str, list[float]] = {"embed": [], "dense": [], "bm25": []}
    for text in texts:
        start = time.perf_counter()
        vector = engine.parts.embedder.embed_query(text)
        stages["embed"].append(time.perf_counter() - start)
        start = time.perf_counter()
        engine.parts.vectors.search(vector, config.candidate_pool)
        stages["dense"].append(time.perf_counter() - start)
        start = time.perf_counter()
        engine.parts.bm25.search(text, config.candidate_pool)
        stages["bm25"].append(time.perf_counter() - start)
    out["stages_ms"] = {name: percentiles_ms(times) for name, times in stages.items()}
    ids = list(engine.parts.reader.passages)[:: max(1, len(engine.parts.reader.passages) // 200)]
    times = []
    for chunk_id in ids:
        start = time.perf_counter()
        passage = engine.parts.reader.passage(chunk_id)
        engine.parts.reader.by_document[passage.document_id]
        times.append(time.perf_counter() - start)
    out["passage_and_siblings_ms"] = percentiles_ms(times)
    out["rss_after_searches_mb"] = round(rss_mb())
    print("DONE " + json.dumps(out), flush=True)


def serve(home: Path, limit: int, vectors: Path | None, memory_passages: bool) -> dict:
    extra = (["--vectors", str(vectors)] if vectors else []) + (["--memory-passages"] if memory_passages else [])
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, __file__, "probe", "--home", str(home), "--queries", str(limit), *extra],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    result: dict = {}
    for line in child.stdout:
        if line.startswith("FIRST "):
            result["cold_start_to_first_answer_s"] = round(time.perf_counter() - start, 2)
        if line.startswith("DONE "):
            result.update(json.loads(line[5:]))
    child.wait()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__file__, __doc__, hog=True)
    parser.add_argument("what", choices=["serve", "probe", "indexes", "components"])
    parser.add_argument("--home", type=Path)
    parser.add_argument("--source", type=Path, help="components: an ingested state to clone")
    parser.add_argument("--passages", type=int, default=1_000_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/scale-1m"))
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--vectors", type=Path, help="serve/probe: an Edge generation folder to serve")
    parser.add_argument("--memory-passages", action="store_true", help="serve/probe: ignore the passage store")
    parser.add_argument(
        "--skip", default="", help="components: comma-separated parts to skip (store, bm25, vectors, hnsw)"
    )
    args = parser.parse_args(argv)
    if args.what == "probe":
        probe(args.home, args.queries, args.vectors, args.memory_passages)
        return 0
    meter = harness.StealMeter()
    if args.what == "serve":
        result = harness.with_hog(args, lambda: serve(args.home, args.queries, args.vectors, args.memory_passages))
    elif args.what == "indexes":
        from scale_indexes import measure_state

        result = measure_state(args.home, questions(args.queries), args.work)
    else:
        from scale_indexes import measure_components

        result = measure_components(
            args.source, args.passages, args.work, questions(args.queries), set(filter(None, args.skip.split(",")))
        )
    result["vector_index"] = os.environ.get("QUANT_RAG_VECTOR_INDEX", "exact")
    harness.emit(args, result, meter=meter)
    return 0


if __name__ == "__main__":
    sys.exit(main())
