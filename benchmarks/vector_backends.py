"""Qdrant Edge vs qdrant-client local mode, through corpus.vectors.vector_store (what the server runs).

Synthetic 384-d clustered vectors (passages: 80 % one piece, 20 % two), 30 passages per
document, years 1990-2024. Per backend and size: build time (upsert + close), reopen time,
query p50/p95 without and with a year filter (2005-2014), and exactness: the top-50 chunks must
equal a numpy brute force (best piece per chunk, ties by chunk_id), in order.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/vector_backends.py --sizes 3000 26000 [--json] [--hog]
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import harness
import numpy as np

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout
from corpus.vectors.vector_store import VectorPoint, open_vector_store

DIM = 384
TOP = 50
YEARS = (2005, 2014)


def synthetic(n_points: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((200, DIM)).astype(np.float32)
    points, chunk = [], 0
    while len(points) < n_points:
        pieces = 2 if rng.random() < 0.2 else 1
        doc = chunk // 30
        for piece in range(pieces):
            v = centers[rng.integers(200)] + 0.8 * rng.standard_normal(DIM).astype(np.float32)
            points.append(
                VectorPoint(
                    f"chunk-{chunk:016x}",
                    f"doc-{doc:016x}",
                    piece,
                    v / np.linalg.norm(v),
                    1990 + doc % 35,
                    ["Author A"],
                )
            )
        chunk += 1
    return points[:n_points], rng


def brute_force(points, matrix, query, year_range=None) -> list[str]:
    scores = matrix @ query
    best: dict[str, float] = {}
    for p, s in zip(points, scores):
        if year_range and not (year_range[0] <= p.year <= year_range[1]):
            continue
        best[p.chunk_id] = max(best.get(p.chunk_id, -2.0), float(s))
    return [c for c, _ in sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]]


def run(backend: str, n_points: int, n_queries: int) -> dict:
    points, rng = synthetic(n_points)
    matrix = np.stack([p.vector for p in points]).astype(np.float32)
    queries = matrix[rng.integers(len(points), size=n_queries)] + 0.3 * rng.standard_normal((n_queries, DIM)).astype(
        np.float32
    )
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    layout, config = StateLayout(Path(tempfile.mkdtemp(prefix="vb-"))), ServedConfig(vector_backend=backend)

    def build() -> None:
        store = open_vector_store(layout, config, DIM)
        store.upsert(points)
        store.close()

    def reopen():
        store = open_vector_store(layout, config, DIM, read_only=True)
        store.count_points()
        return store

    build_s = harness.timed(build)[1]
    store, reopen_s = harness.timed(reopen)
    row = {"backend": backend, "points": n_points, "build_s": build_s, "reopen_s": reopen_s}
    for label, years in (("plain", None), ("year", YEARS)):
        latencies, exact = [], 0
        kwargs = {"year_min": years[0], "year_max": years[1]} if years else {}
        for q in queries:
            got, seconds = harness.timed(store.search, q, TOP, **kwargs)
            latencies.append(seconds)
            exact += [c for c, _ in got] == brute_force(points, matrix, q, years)
        figures = harness.percentiles_ms(latencies, digits=3)
        row[f"{label}_p50_ms"], row[f"{label}_p95_ms"] = figures["p50"], figures["p95"]
        row[f"{label}_exact"] = f"{exact}/{n_queries}"
    store.close()
    return row


def main() -> None:
    parser = harness.parser(__file__, __doc__, hog=True)
    parser.add_argument("--sizes", type=int, nargs="+", default=[3000, 26000])
    parser.add_argument("--backends", nargs="+", default=["edge", "local"])
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args()
    columns = [
        "backend",
        "points",
        "build_s",
        "reopen_s",
        "plain_p50_ms",
        "plain_p95_ms",
        "plain_exact",
        "year_p50_ms",
        "year_p95_ms",
        "year_exact",
    ]
    meter, rows = harness.StealMeter(), []
    harness.say(args, " | ".join(["condition", *columns]))
    for condition in harness.conditions(args):
        with harness.cpu_hog(condition == "hog"):
            for size in args.sizes:
                for backend in args.backends:
                    rows.append({"condition": condition, **run(backend, size, args.queries)})
                    harness.say(
                        args,
                        " | ".join(
                            f"{rows[-1][c]:.2f}" if isinstance(rows[-1][c], float) else str(rows[-1][c])
                            for c in ["condition", *columns]
                        ),
                    )
    harness.emit(args, {"rows": rows}, [], meter=meter)


if __name__ == "__main__":
    main()
