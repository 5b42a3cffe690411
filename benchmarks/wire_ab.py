"""Two servers measured at once at the wire, their calls alternated: a before/after comparison that
a busy machine cannot tilt (both see the same neighbours at the same moments).

    python benchmarks/wire_ab.py --home S --before /tmp/tree-at-main --after . --repeat 150

Each tree is a checkout of this repository (e.g. `git worktree add /tmp/tree-at-main main`); its
server runs as `python -m serving.server` with that tree first on the path. Per tool: p50 / p95 ms
(request line written -> answer line read, benchmarks/wire_client.py) and the server's CPU ms per
call, from /proc.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import harness
from harness import percentiles_ms
from wire_client import WireClient, cpu_seconds

QUERIES = [
    "How is value at risk estimated from historical returns?",
    "What does kurtosis say about fat tails?",
    "variance of a portfolio",
    "market impact of large orders",
    "multiple comparisons bias in backtests",
]
WARM_UP_S = 3.0  # the servers' background warm-up (model, vectors, BM25) ends within this, idle


def _server(tree: Path, home: Path) -> WireClient:
    env = {**os.environ, "QUANT_RAG_HOME": str(home), "PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1"}
    return WireClient(sys.executable, ["-m", "serving.server"], env, str(tree))


def compare(trees: dict[str, Path], home: Path, tools: list[str], repeat: int) -> dict:
    clients = {label: _server(tree, home) for label, tree in trees.items()}
    try:
        chunk = {}
        for label, client in clients.items():
            client.initialize()
            found = client.call_tool("search_documents", {"query": QUERIES[0]})[1]
            chunk[label] = found["structuredContent"]["results"][0]["chunk_id"]
        time.sleep(WARM_UP_S)
        for client in clients.values():
            for query in QUERIES:
                client.call_tool("search_documents", {"query": query})

        def call(label: str, tool: str, i: int) -> float:
            client = clients[label]
            if tool == "ping":
                return client.timed("ping")[0]
            if tool == "get_passage":
                return client.call_tool(tool, {"chunk_id": chunk[label], "neighbours": 1})[0]
            return client.call_tool(tool, {"query": QUERIES[i % len(QUERIES)]})[0]

        out: dict = {}
        for tool in tools:
            times: dict[str, list[float]] = {label: [] for label in clients}
            cpu = {label: cpu_seconds(c.pid) for label, c in clients.items()}
            for i in range(repeat):
                for label in list(clients) if i % 2 == 0 else list(clients)[::-1]:
                    times[label].append(call(label, tool, i))
            out[tool] = {
                label: {
                    **percentiles_ms(times[label]),
                    "server_cpu_ms": round(1000 * (cpu_seconds(clients[label].pid) - cpu[label]) / repeat, 2),
                }
                for label in clients
            }
        return out
    finally:
        for client in clients.values():
            client.close()


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__file__, __doc__, hog=True)
    parser.add_argument("--home", type=Path, required=True, help="state dir (read only)")
    parser.add_argument("--before", type=Path, required=True, help="a checkout to compare against")
    parser.add_argument("--after", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--tools", default="search_documents,get_passage,ping")
    parser.add_argument("--repeat", type=int, default=150)
    args = parser.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    harness.say(args, f"load {os.getloadavg()[0]:.2f}; {args.repeat} calls each, alternated")
    meter = harness.StealMeter()
    figures = harness.with_hog(args, lambda: compare(trees, args.home, args.tools.split(","), args.repeat))
    lines = []
    for suffix, by_tool in (("", figures), (" hog", figures.get("hog", {}))):
        for tool, rows in by_tool.items():
            lines += [
                f"{tool:<18}{label + suffix:<12} p50 {r['p50']:7.2f}  p95 {r['p95']:7.2f} ms   "
                f"server CPU {r['server_cpu_ms']:6.2f} ms/call"
                for label, r in rows.items()
                if tool != "hog"
            ]
    harness.emit(args, figures, lines, meter=meter)
    return 0


if __name__ == "__main__":
    sys.exit(main())
