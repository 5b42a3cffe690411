"""Serving latency over MCP stdio: cold start to first answer, then per-tool p50/p95 warm.

    QUANT_RAG_HOME=<ingested state> python benchmarks/serving_latency.py [--repeat 30] [--json]
    python benchmarks/serving_latency.py --fixture /tmp/qr_bench   # builds the small test state

Each figure is wall time seen by the SDK's stdio client, around `session.call_tool`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[1]
QUERIES = ["How is value at risk estimated from historical returns?",
           "What does kurtosis say about fat tails?", "variance of a portfolio",
           "market impact of large orders", "multiple comparisons bias in backtests"]


def _params(home: Path, warm_up: bool) -> StdioServerParameters:
    env = {**os.environ, "QUANT_RAG_HOME": str(home), "HF_HUB_OFFLINE": "1",
           "QUANT_RAG_WARM_UP": "1" if warm_up else "0"}
    return StdioServerParameters(command=sys.executable, args=["-m", "serving.server"], env=env,
                                 cwd=str(REPO))


async def _timed(session, name, arguments) -> float:
    start = time.perf_counter()
    result = await session.call_tool(name, arguments)
    elapsed = time.perf_counter() - start
    if result.is_error:
        raise RuntimeError(f"{name} failed: {result.content[0].text}")
    return elapsed


async def cold_start(home: Path, first_tool: str, arguments: dict) -> dict:
    """Seconds from spawning the server to initialize, and to the first answer of `first_tool`."""
    start = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with stdio_client(_params(home, warm_up=True), errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                ready = time.perf_counter() - start
                await session.call_tool(first_tool, arguments)
                return {"initialize_s": ready, "first_answer_s": time.perf_counter() - start}


async def warm_latencies(home: Path, repeat: int) -> dict[str, list[float]]:
    with open(os.devnull, "w") as errlog:
        async with stdio_client(_params(home, warm_up=True), errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                search = await session.call_tool("search_documents", {"query": QUERIES[0]})
                hit = search.structured_content["results"][0]
                quote = hit["text"][:100]
                await session.call_tool("session_put", {
                    "name": "ev", "kind": "evidence", "provenance": "served",
                    "value": {"items": [{"document_id": hit["document_id"], "quote": quote}] * 5}})
                calls = {
                    "search_documents": lambda i: {"query": QUERIES[i % len(QUERIES)]},
                    "search_documents(hybrid)": lambda i: {"query": QUERIES[i % len(QUERIES)], "mode": "hybrid"},
                    "get_passage": lambda i: {"chunk_id": hit["chunk_id"], "neighbours": 1},
                    "list_documents": lambda i: {"limit": 20},
                    "timeline": lambda i: {"query": QUERIES[i % len(QUERIES)]},
                    "verify_citation": lambda i: {"document_id": hit["document_id"], "quote": quote},
                    "verify_citations": lambda i: {"evidence": {"session": "ev"}},
                    "corpus_status": lambda i: {},
                    "search_graph": lambda i: {"query": "value at risk"},
                    "expand_entity": lambda i: {"entity_name": "variance"},
                    "connect_entities": lambda i: {"entity_a": "variance", "entity_b": "returns"},
                    "session_put": lambda i: {"name": f"s{i}", "kind": "reading_list",
                                              "provenance": "served", "value": {"chunk_ids": [hit["chunk_id"]]}},
                    "session_get": lambda i: {"name": "ev"},
                    "session_list": lambda i: {},
                    "session_delete": lambda i: {"name": f"s{i}"},
                }
                times: dict[str, list[float]] = {}
                for label, make in calls.items():
                    tool = label.split("(")[0]
                    times[label] = [await _timed(session, tool, make(i)) for i in range(repeat)]
                return times


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=None, help="state dir (default QUANT_RAG_HOME)")
    parser.add_argument("--fixture", type=Path, default=None,
                        help="build the small test state in this folder and measure it")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    home = args.home or Path(os.environ.get("QUANT_RAG_HOME", "./var")).resolve()
    if args.fixture:
        sys.path.insert(0, str(REPO / "tests" / "serving"))
        from conftest import build_state  # the test suite's hand-built state

        home = args.fixture
        if not (home / "signature.json").exists():
            build_state(home)
    report = {
        "cold_corpus_status": anyio.run(cold_start, home, "corpus_status", {}),
        "cold_search": anyio.run(cold_start, home, "search_documents", {"query": QUERIES[0]}),
    }
    warm = anyio.run(warm_latencies, home, args.repeat)
    report["warm_ms"] = {label: {"p50": 1000 * percentile(v, 50), "p95": 1000 * percentile(v, 95)}
                         for label, v in warm.items()}
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    for name in ("cold_corpus_status", "cold_search"):
        r = report[name]
        print(f"{name}: initialize {r['initialize_s']:.2f} s, first answer {r['first_answer_s']:.2f} s")
    print(f"{'tool (warm, ms)':<26}{'p50':>9}{'p95':>9}")
    for label, figures in report["warm_ms"].items():
        print(f"{label:<26}{figures['p50']:>9.1f}{figures['p95']:>9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
