"""Cold start over MCP stdio, two checkouts alternated: seconds from spawning `python -m
serving.mcp.server` to `initialize` answered and to its first search answered (at the wire,
benchmarks/wire_client.py), and the server's CPU seconds by then (all its threads, from /proc).

    python benchmarks/serving_cold.py --home S --before /tmp/tree-at-main [--after .] [--runs 4]
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import harness
from wire_client import WireClient, cpu_seconds

QUESTION = "How is value at risk estimated from historical returns?"


def cold_start(tree: Path, home: Path) -> dict[str, float]:
    env = {**os.environ, "QUANT_RAG_HOME": str(home), "PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1"}
    with WireClient(sys.executable, ["-m", "serving.server"], env, str(tree)) as client:
        ready = client.initialize()
        client.call_tool("search_documents", {"query": QUESTION})
        first = time.perf_counter() - client.started
        cpu = cpu_seconds(client.pid)
        return {"initialize_s": round(ready, 2), "first_answer_s": round(first, 2), "cpu_s": round(cpu, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--home", type=Path, required=True, help="state dir (read only)")
    parser.add_argument("--before", type=Path, required=True, help="a checkout to compare against")
    parser.add_argument("--after", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--runs", type=int, default=4, help="cold starts of each, alternated")
    args = parser.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    runs: dict[str, list[dict]] = {label: [] for label in trees}
    for i in range(args.runs):
        for label in list(trees) if i % 2 == 0 else list(trees)[::-1]:
            runs[label].append(cold_start(trees[label], args.home))
    lines = [
        f"{label:<7} first answer {min(r['first_answer_s'] for r in rows)}–{max(r['first_answer_s'] for r in rows)} s, "
        f"initialize {min(r['initialize_s'] for r in rows)}–{max(r['initialize_s'] for r in rows)} s, "
        f"server CPU {min(r['cpu_s'] for r in rows)}–{max(r['cpu_s'] for r in rows)} s"
        for label, rows in runs.items()
    ]
    harness.emit(args, runs, [f"load {os.getloadavg()[0]:.2f}; {args.runs} cold starts each, alternated", *lines])
    return 0


if __name__ == "__main__":
    sys.exit(main())
