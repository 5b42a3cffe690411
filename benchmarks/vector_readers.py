"""In-memory readers (corpus.vectors.vector_readers) against Qdrant Edge's exact search on a real state.

Copies the state's current Edge generation to a scratch folder (the state is only read), then
measures: the writer's snapshot (time, size), a reader's load from the snapshot and from a
private copy (no snapshot), the reader's memory, query latency, and agreement: top-50 chunk ids
equal to Edge's, in order, for queries made of stored vectors and random directions, without a
filter, with a year bound and with a one-document filter.

    QUANT_RAG_HOME=/work/state/lib OMP_NUM_THREADS=1 python benchmarks/vector_readers.py
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from corpus.config import ServedConfig
from corpus.state.generations import current_generation
from corpus.state.layout import StateLayout, read_json
from corpus.vectors.vector_readers import open_edge_reader
from corpus.vectors.vector_store import edge_root
from corpus.vectors.vector_store_edge import META_FILE, EdgeVectorStore
from corpus.vectors.vector_store_memory import SNAPSHOT_FILE

TOP = 50
QUERIES = 40


def main() -> None:
    layout, config = StateLayout.from_env(), ServedConfig.from_env()
    source = current_generation(edge_root(layout, config))
    dimension = read_json(source / META_FILE)["dimension"]
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "edge"
        folder = root / source.name
        shutil.copytree(source, folder, ignore=shutil.ignore_patterns("*.lock", SNAPSHOT_FILE))
        start = time.perf_counter()
        copy_load = open_edge_reader(root, dimension, folder)  # no snapshot yet: private copy
        copy_s = time.perf_counter() - start
        edge = EdgeVectorStore(folder, dimension)
        start = time.perf_counter()
        edge.write_snapshot()
        snapshot_s = time.perf_counter() - start
        start = time.perf_counter()
        reader = open_edge_reader(root, dimension, folder)
        load_s = time.perf_counter() - start
        rng = np.random.default_rng(3)
        stored = reader.vectors[rng.choice(reader.count_points(), QUERIES // 2, replace=False)]
        queries = list(stored) + list(rng.standard_normal((QUERIES // 2, dimension)).astype(np.float32))
        years = sorted({int(y) for y in reader.years if y > 0})
        document = sorted(reader.document_ids())[0]
        scopes = [{}, {"year_min": years[len(years) // 2]}, {"document_ids": [document]}]
        disagreements, latencies = 0, []
        for scope in scopes:
            for query in queries:
                start = time.perf_counter()
                got = reader.search(query, TOP, **scope)
                latencies.append(time.perf_counter() - start)
                want = edge.search(query, TOP, **scope)
                disagreements += [c for c, _ in got] != [c for c, _ in want]
        edge.close()
        assert copy_load.search(queries[0], TOP) == reader.search(queries[0], TOP)
        print(f"points {reader.count_points()}, chunks {len(reader.chunk_ids())}, dimension {dimension}")
        print(f"snapshot: written in {snapshot_s:.3f} s, {(folder / SNAPSHOT_FILE).stat().st_size / 1e6:.1f} MB")
        print(f"reader load: {load_s:.3f} s from the snapshot, {copy_s:.3f} s from a private copy")
        print(f"reader memory: {reader.nbytes / 1e6:.1f} MB of arrays")
        print(f"query p50 {np.median(latencies) * 1e3:.2f} ms, p95 {np.percentile(latencies, 95) * 1e3:.2f} ms")
        print(f"top-{TOP} disagreements with Edge: {disagreements} of {len(scopes) * len(queries)} "
              f"(scopes: none, year_min={scopes[1]['year_min']}, one document)")


if __name__ == "__main__":
    main()
