"""Where a server's memory goes: each part of the engine opened in turn, then searches, in a fresh
process set up as the server is; resident memory after each step, split into the process's own
(RssAnon) and the file pages it touched (RssFile), and the file pages by what they belong to.

    python benchmarks/serving_memory_parts.py --home S [--searches 100] [--tree /tmp/tree-at-main]

Every part's row is the growth it caused. The file rows at the end read /proc/self/smaps: the
memory-mapped vectors, graph and payload of the Qdrant shard, BM25's arrays, the passage store,
the token rows, the models and the shared libraries.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, os.environ.get("QUANT_RAG_TREE", str(REPO)))  # --tree: that checkout's code

import harness  # noqa: E402

QUESTIONS = REPO / "evaluation" / "questions" / "library_dev.jsonl"
# A mapped file's owner, by the first of these path fragments it holds (else "other files").
FILE_OWNERS = (
    ("/vectors/", "vector store (Qdrant shard)"),
    ("/bm25/", "BM25 arrays"),
    ("/passage_store/", "passage store"),
    ("/token_index/", "token rows"),
    ("/models/", "models"),
    (".so", "shared libraries"),
)


def status_mb() -> dict[str, float]:
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return {key: int(fields[key].split()[0]) / 1024 for key in ("VmRSS", "RssAnon", "RssFile")}


def mapped_files_mb() -> dict[str, float]:
    """Resident pages of each mapped file's owner (FILE_OWNERS), in MB."""
    owners: dict[str, float] = defaultdict(float)
    owner = None
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
            path = head[5] if len(head) > 5 else ""
            owner = next((name for frag, name in FILE_OWNERS if frag in path), "other files") if "/" in path else None
        elif owner and line.startswith("Rss:"):
            owners[owner] += int(head[1]) / 1024
    return {name: round(mb, 1) for name, mb in sorted(owners.items(), key=lambda item: -item[1]) if mb >= 0.5}


def probe(home: Path, searches: int) -> None:
    """Child process: the server's process settings, then each part, then the searches."""
    from serving.mcp.process import import_bm25s_without_scipy, single_threaded_blas, without_numba

    single_threaded_blas()
    without_numba()
    import_bm25s_without_scipy()
    import gc

    from corpus.config import ServedConfig
    from corpus.reading.published import open_published
    from corpus.state.layout import StateLayout
    from corpus.state.signature import recorded_signature

    try:
        from serving.retrieval.engine import Engine
        from serving.retrieval.parts import EXTRA_PARTS
        from serving.retrieval.scope import Scope
    except ImportError:  # --tree: a checkout from before serving's rooms, whose engine held its parts
        import importlib

        flat = importlib.import_module("serving.engine")
        Engine, EXTRA_PARTS = flat.Engine, flat.EXTRA_PARTS  # type: ignore[misc]
        Scope = importlib.import_module("serving.scope").Scope  # type: ignore[misc]

    rows: list[dict] = []
    last = status_mb()
    rows.append({"step": "interpreter and imports", **{k: round(v, 1) for k, v in last.items()}})

    def record(step: str, seconds: float) -> None:
        nonlocal last
        gc.collect()
        now = status_mb()
        rows.append({"step": step, "s": round(seconds, 2), **{k: round(now[k] - last[k], 1) for k in now}})
        last = now

    view = open_published(StateLayout(home))
    config = ServedConfig.from_env()
    engine = Engine(view.layout, config, signature=recorded_signature(view.layout))
    # What the server's warm-up opens (Engine.warm_up); the entity graph waits for a graph tool.
    for part in ("reader", "embedder", "vectors", "bm25", "term_statistics", *EXTRA_PARTS):
        start = time.perf_counter()
        getattr(engine, "parts", engine).open_part(part)
        record(part, time.perf_counter() - start)
    start = time.perf_counter()
    getattr(engine, "catalogue", engine).documents_in_scope(Scope(year_min=2005, year_max=2009))
    record("scope catalogue", time.perf_counter() - start)
    texts = [json.loads(line)["question"] for line in QUESTIONS.read_text().splitlines() if line.strip()]
    start = time.perf_counter()
    engine.retrieve(texts[0], config.default_mode, Scope(), limit=10)
    record("first search", time.perf_counter() - start)
    start = time.perf_counter()
    for i in range(searches):
        engine.retrieve(texts[(i + 1) % len(texts)], config.default_mode, Scope(), limit=10)
    record(f"{searches} more searches", time.perf_counter() - start)
    total = {k: round(v, 1) for k, v in status_mb().items()}
    print("DONE " + json.dumps({"steps": rows, "total": total, "file_pages": mapped_files_mb()}), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("command", nargs="?", default="run", choices=("run", "probe"))
    parser.add_argument("--home", type=Path, required=True, help="state dir (read only)")
    parser.add_argument("--searches", type=int, default=100)
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout whose engine is measured")
    args = parser.parse_args(argv)
    if args.command == "probe":
        probe(args.home, args.searches)
        return 0
    child = subprocess.run(
        [sys.executable, __file__, "probe", "--home", str(args.home), "--searches", str(args.searches)],
        capture_output=True,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1", "QUANT_RAG_TREE": str(args.tree.resolve())},
        cwd=args.tree,
        check=False,
    )
    done = [line for line in child.stdout.splitlines() if line.startswith("DONE ")]
    if not done:
        parser.exit(1, child.stderr[-3000:])
    figures = json.loads(done[0][5:])
    lines = [
        f"{row['step']:<24}" + "  ".join(f"{k} {v}" for k, v in row.items() if k != "step") for row in figures["steps"]
    ]
    lines.append("total (MB)              " + "  ".join(f"{k} {v}" for k, v in figures["total"].items()))
    lines.append("file pages (MB)         " + ", ".join(f"{k} {v}" for k, v in figures["file_pages"].items()))
    harness.emit(args, figures, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
