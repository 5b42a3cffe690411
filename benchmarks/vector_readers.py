"""In-memory readers (corpus.vectors.vector_readers) against Qdrant Edge's exact search on a real state.

Copies the state's current Edge generation to a scratch folder (the state is only read), then
measures: the writer's snapshot (time, size), a reader's load from the snapshot and from a
private copy (no snapshot), the reader's memory, query latency, and agreement: top-50 chunk ids
equal to Edge's, in order, for queries made of stored vectors and random directions, without a
filter, with a year bound and with a one-document filter.

    QUANT_RAG_HOME=/work/state/lib OMP_NUM_THREADS=1 python benchmarks/vector_readers.py [--json] [--hog]
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import harness
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
    args = harness.parser(__file__, __doc__, hog=True).parse_args()
    meter = harness.StealMeter()
    figures = harness.with_hog(args, measure)
    harness.emit(
        args,
        figures,
        [
            f"points {figures['points']}, chunks {figures['chunks']}, dimension {figures['dimension']}",
            f"snapshot: written in {figures['snapshot_s']:.3f} s, {figures['snapshot_mb']:.1f} MB",
            f"reader load: {figures['load_from_snapshot_s']:.3f} s from the snapshot, "
            f"{figures['load_from_copy_s']:.3f} s from a private copy",
            f"reader memory: {figures['reader_mb']:.1f} MB of arrays",
            *(
                f"query{suffix} p50 {run['query_ms']['p50']:.2f} ms, p95 {run['query_ms']['p95']:.2f} ms"
                for suffix, run in (("", figures), (" [hog]", figures.get("hog")))
                if run
            ),
            f"top-{TOP} disagreements with Edge: {figures['disagreements']} of {figures['compared']} "
            f"(scopes: none, year_min={figures['year_min']}, one document)",
        ],
        meter=meter,
    )


def measure() -> dict:
    layout, config = StateLayout.from_env(), ServedConfig.from_env()
    source = current_generation(edge_root(layout, config))
    dimension = read_json(source / META_FILE)["dimension"]
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "edge"
        folder = root / source.name
        shutil.copytree(source, folder, ignore=shutil.ignore_patterns("*.lock", SNAPSHOT_FILE))
        copy_load, copy_s = harness.timed(open_edge_reader, root, dimension, folder)  # no snapshot yet: a copy
        edge = EdgeVectorStore(folder, dimension)
        snapshot_s = harness.timed(edge.write_snapshot)[1]
        reader, load_s = harness.timed(open_edge_reader, root, dimension, folder)
        rng = np.random.default_rng(3)
        stored = reader.vectors[rng.choice(reader.count_points(), QUERIES // 2, replace=False)]
        queries = list(stored) + list(rng.standard_normal((QUERIES // 2, dimension)).astype(np.float32))
        years = sorted({int(y) for y in reader.years if y > 0})
        document = sorted(reader.document_ids())[0]
        scopes = [{}, {"year_min": years[len(years) // 2]}, {"document_ids": [document]}]
        disagreements, latencies = 0, []
        for scope in scopes:
            for query in queries:
                got, seconds = harness.timed(reader.search, query, TOP, **scope)
                latencies.append(seconds)
                want = edge.search(query, TOP, **scope)
                disagreements += [c for c, _ in got] != [c for c, _ in want]
        edge.close()
        assert copy_load.search(queries[0], TOP) == reader.search(queries[0], TOP)
        return {
            "points": reader.count_points(),
            "chunks": len(reader.chunk_ids()),
            "dimension": dimension,
            "snapshot_s": round(snapshot_s, 3),
            "snapshot_mb": round((folder / SNAPSHOT_FILE).stat().st_size / 1e6, 1),
            "load_from_snapshot_s": round(load_s, 3),
            "load_from_copy_s": round(copy_s, 3),
            "reader_mb": round(reader.nbytes / 1e6, 1),
            "query_ms": harness.percentiles_ms(latencies),
            "disagreements": disagreements,
            "compared": len(scopes) * len(queries),
            "year_min": scopes[1]["year_min"],
        }


if __name__ == "__main__":
    main()
