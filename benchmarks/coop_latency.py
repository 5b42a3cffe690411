"""Cooperative search latency over MCP stdio, at the wire, with the bare question in the same run.

    QUANT_RAG_HOME=<state> python benchmarks/coop_latency.py [--repeat 30] [--json] [--hog]

One warm server (`python -m serving.server`), spoken to in raw JSON-RPC (benchmarks/wire_client.py:
from writing the request line to reading the whole answer line). The library dev questions with
their blind expansions (evaluation/questions/library_dev_expansions.jsonl): each round calls
search_documents with the question alone, then with the question + 3 alternatives + the
hypothetical passage, alternating, so both arms see the same moments of a shared host. Beside
the wall times, the server's CPU milliseconds per call (from /proc): on a loaded host the wall
time mostly measures the neighbours. The floor, after the server stops: the same requests' inputs
only embedded, in this process, by the server's encoders (the question's float32 graph, the
caller's graph of `caller_runtime`): what no ranking or transport change can remove.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import harness
from harness import percentile
from wire_client import WireClient, cpu_seconds

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "evaluation" / "questions" / "library_dev.jsonl"
EXPANSIONS = REPO / "evaluation" / "questions" / "library_dev_expansions.jsonl"
WARM_CALLS = 5


def requests() -> list[tuple[dict, dict]]:
    """(bare arguments, cooperative arguments) per dev question with expansions."""
    expansions = {row["id"]: row for row in map(json.loads, EXPANSIONS.read_text().splitlines())}
    pairs = []
    for row in map(json.loads, QUESTIONS.read_text().splitlines()):
        if row["id"] in expansions:
            bare = {"query": row["question"], "limit": 10}
            extra = expansions[row["id"]]
            pairs.append(
                (
                    bare,
                    {
                        **bare,
                        "alternatives": extra["alternatives"][:3],
                        "hypothetical_passage": extra["hypothetical_passage"],
                    },
                )
            )
    return pairs


def measure(home: Path, repeat: int) -> dict:
    env = {**os.environ, "QUANT_RAG_HOME": str(home), "HF_HUB_OFFLINE": "1", "QUANT_RAG_WARM_UP": "1"}
    pairs = requests()
    times: dict[str, list[float]] = {"bare": [], "cooperative": []}
    cpu = dict.fromkeys(times, 0.0)
    with WireClient(sys.executable, ["-m", "serving.server"], env, str(REPO)) as client:
        client.initialize()
        for bare, coop in pairs[:WARM_CALLS]:
            client.call_tool("search_documents", bare)
            client.call_tool("search_documents", coop)
        for i in range(repeat):
            bare, coop = pairs[i % len(pairs)]
            for arm, arguments in (("bare", bare), ("cooperative", coop)):
                before = cpu_seconds(client.pid)
                seconds, result = client.call_tool("search_documents", arguments)
                cpu[arm] += cpu_seconds(client.pid) - before
                times[arm].append(seconds)
                inputs = result["structuredContent"]["searched_text"]
                assert len(inputs) == (1 if arm == "bare" else 5), inputs
    return {
        arm: {
            "p50_ms": round(1000 * percentile(v, 50), 1),
            "p95_ms": round(1000 * percentile(v, 95), 1),
            "server_cpu_ms_per_call": round(1000 * cpu[arm] / repeat, 1),
            "n": len(v),
        }
        for arm, v in times.items()
    } | {
        "encoding_floor": encoding_floor(home, pairs, repeat),
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def encoding_floor(home: Path, pairs: list[tuple[dict, dict]], repeat: int) -> dict:
    """p50 / p95 ms of embedding each request's inputs alone, bare and cooperative, as the server does."""
    from corpus.config import ServedConfig
    from corpus.encoding.embedder import model_folder
    from corpus.encoding.onnx_encoder import caller_graph_file
    from corpus.encoding.token_encoder import load_token_encoder
    from corpus.state.layout import StateLayout

    layout, config = StateLayout(home), ServedConfig.from_env()
    question = load_token_encoder(layout, config, model_folder(config), None)
    callers = load_token_encoder(layout, config, model_folder(config), None, graph=caller_graph_file(layout, config))
    if question is None or callers is None:
        return {}
    times: dict[str, list[float]] = {"bare": [], "cooperative": []}
    for i in range(WARM_CALLS + repeat):
        bare, coop = pairs[i % len(pairs)]
        for arm in times:
            start = time.perf_counter()
            question.queries([bare["query"]])
            if arm == "cooperative":
                callers.queries([*coop["alternatives"], coop["hypothetical_passage"]])
            if i >= WARM_CALLS:
                times[arm].append(time.perf_counter() - start)
    return {
        arm: {"p50_ms": round(1000 * percentile(v, 50), 1), "p95_ms": round(1000 * percentile(v, 95), 1)}
        for arm, v in times.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__file__, __doc__, hog=True)
    parser.add_argument("--home", type=Path, default=Path(os.environ.get("QUANT_RAG_HOME", "var")))
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args(argv)
    meter = harness.StealMeter()
    report = harness.with_hog(args, lambda: measure(args.home, args.repeat))
    lines = [
        f"search_documents {arm + suffix:<16} p50 {row['p50_ms']:>7.1f} ms  p95 {row['p95_ms']:>7.1f} ms  "
        f"server CPU {row['server_cpu_ms_per_call']:>6.1f} ms/call  (n={row['n']})"
        for suffix, rows in (("", report), (" hog", report.get("hog", {})))
        for arm, row in rows.items()
        if arm in ("bare", "cooperative")
    ]
    floor = report.get("encoding_floor", {})
    lines += [
        f"floor: embedding the {arm} inputs p50 {row['p50_ms']:>7.1f} ms  p95 {row['p95_ms']:>7.1f} ms  "
        f"(wire p50 / floor p50 {report[arm]['p50_ms'] / row['p50_ms']:.1f}x)"
        for arm, row in floor.items()
    ]
    harness.emit(args, report, lines + [f"at {report['at']}"], meter=meter)
    return 0


if __name__ == "__main__":
    sys.exit(main())
