"""Cost as the library grows: one server per state, the same questions, one table and a plot.

    QUANT_RAG_VECTOR_INDEX=hnsw python benchmarks/scale_growth.py \
        --state 10k=/work/scale/s10k --state 100k=/work/scale/s100k \
        --state 300k=/work/scale/s300k --state 1M=/work/scale/s1m --plot docs/figures/scale_growth.svg

Each state is built by benchmarks/synthetic_state.py (its --out report beside the state, as
`<state>.json`, gives the build time); `--state LABEL=PATH@TREE` serves PATH with another checkout's
code (the same state before and after a change, paired the same way). For each state, in turn: a
fresh `python -m serving.server` over MCP stdio is timed from spawn to its first search answered
(cold start). Then the servers, all kept running, answer the library's development questions in
rounds: each question goes to every server, in an order rotated per question, so every state meets
the same moments of the host (paired). Search times are at the wire (benchmarks/wire_client.py).
After the searches, each server's resident memory: VmRSS, and its parts RssAnon (its own) and
RssFile (file pages it touched, reclaimable)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import harness  # noqa: E402
from serving_memory import memory_mb  # noqa: E402
from wire_client import WireClient  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "evaluation" / "questions" / "library_dev.jsonl"


def passages_of(home: Path) -> int:
    """Passages served from `home` (its passage store's count)."""
    from corpus.indexes.passage_store import PassageStore
    from corpus.reading.published import open_published
    from corpus.state.layout import StateLayout
    from corpus.state.signature import recorded_signature

    view = open_published(StateLayout(home))
    try:
        store = PassageStore.for_state(view.layout, recorded_signature(view.layout))
        if store is None:
            raise SystemExit(f"{home}: no passage store for its signature")
        count = store.count
        store.close()
        return count
    finally:
        view.close()


def build_seconds(home: Path) -> float | None:
    """The synthetic state's write + corpus assets time, from its --out report beside it."""
    report = home.with_suffix(".json")
    if not report.exists():
        return None
    figures = json.loads(report.read_text())["figures"]
    return figures["write_s"] + figures["refresh_s"]


def measure(states: dict[str, tuple[Path, Path]], searches: int) -> dict[str, dict]:
    questions = [json.loads(line)["question"] for line in QUESTIONS.read_text().splitlines() if line.strip()]
    out: dict[str, dict] = {label: {"passages": passages_of(home)} for label, (home, _) in states.items()}
    servers: dict[str, WireClient] = {}
    try:
        for label, (home, tree) in states.items():
            env = {**os.environ, "QUANT_RAG_HOME": str(home), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(tree)}
            client = WireClient(sys.executable, ["-m", "serving.server"], env, str(tree))
            servers[label] = client
            client.initialize()
            client.call_tool("search_documents", {"query": questions[0]})
            out[label]["cold_start_s"] = round(time.perf_counter() - client.started, 2)
            print(f"{label}: first answer {out[label]['cold_start_s']} s after spawn", file=sys.stderr, flush=True)
        times: dict[str, list[float]] = {label: [] for label in states}
        labels = list(states)
        for i in range(searches):
            question = questions[(i + 1) % len(questions)]
            for label in labels[i % len(labels) :] + labels[: i % len(labels)]:
                seconds, _ = servers[label].call_tool("search_documents", {"query": question})
                times[label].append(seconds)
        for label, client in servers.items():
            out[label]["search_ms"] = harness.percentiles_ms(times[label])
            out[label]["memory_mb"] = memory_mb(client.pid)
            out[label]["build_s"] = build_seconds(states[label][0])
    finally:
        for client in servers.values():
            client.close()
    return out


def plot(figures: dict[str, dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [row["passages"] for row in figures.values()]
    fig, (latency, memory) = plt.subplots(1, 2, figsize=(10, 4))
    latency.plot(sizes, [row["search_ms"]["p50"] for row in figures.values()], "o-", label="p50")
    latency.plot(sizes, [row["search_ms"]["p95"] for row in figures.values()], "s--", label="p95")
    latency.set(xscale="log", xlabel="passages", ylabel="search_documents at the wire (ms)")
    latency.legend()
    memory.plot(sizes, [row["memory_mb"]["VmRSS"] for row in figures.values()], "o-", label="resident")
    memory.plot(sizes, [row["memory_mb"]["RssAnon"] for row in figures.values()], "s--", label="own (anonymous)")
    memory.set(xscale="log", xlabel="passages", ylabel="server memory after the searches (MB)")
    memory.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)


def table(figures: dict[str, dict]) -> list[str]:
    lines = [
        "| state | passages | search p50 / p95 (ms) | resident / own MB | cold start (s) | build (s) |",
        "|---|---|---|---|---|---|",
    ]
    for label, row in figures.items():
        search, memory = row["search_ms"], row["memory_mb"]
        lines.append(
            f"| {label} | {row['passages']:,} | {search['p50']} / {search['p95']} | {memory['VmRSS']:,.0f} / "
            f"{memory['RssAnon']:,.0f} | {row['cold_start_s']} | {row['build_s'] or '—'} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__file__, __doc__)
    parser.add_argument("--state", action="append", required=True, metavar="LABEL=PATH[@TREE]", help="a built state")
    parser.add_argument("--searches", type=int, default=100, help="searches per server after the first")
    parser.add_argument("--plot", type=Path, default=None, help="write the plot here (.svg or .png)")
    args = parser.parse_args(argv)
    states = {}
    for item in args.state:
        label, _, rest = item.partition("=")
        path, _, tree = rest.partition("@")
        if not path:
            parser.error(f"--state {item!r}: expected LABEL=PATH[@TREE]")
        states[label] = (Path(path).resolve(), Path(tree).resolve() if tree else REPO)
    figures = measure(states, args.searches)
    if args.plot:
        plot(figures, args.plot)
    harness.emit(args, figures, table(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
