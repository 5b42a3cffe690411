"""Serving latency over MCP stdio: cold start to first answer, then per-tool p50/p95 warm.

    QUANT_RAG_HOME=<ingested state> python benchmarks/serving_latency.py [--repeat 30] [--json]
    python benchmarks/serving_latency.py --fixture /tmp/qr_bench   # builds the small test state
    python benchmarks/serving_latency.py --home S --tools search_documents,get_passage --out r.json
    python benchmarks/serving_latency.py --home S --no-mcp --edge 100 --profile 30   # in process
    python benchmarks/serving_latency.py --home S --tools search_documents,get_passage --hog
    python benchmarks/serving_latency.py --home S --tools get_passage --server-profile /tmp/s.prof

Each run also times, in this process, Engine.retrieve on the same queries, each right after its
search at the wire (the stdio/in-process ratio, both halves from the same moments), and profiles
one search_documents call stage by stage as the server runs it (benchmarks/serving_profile.py). The
warm wire server stamps each call (benchmarks/timed_server.py): how long the SDK took from the
request line to our handler, the handler itself, and from its end to the answer line. --hog
repeats cold start, warm calls and the in-process timing with `python -c "while True: pass"`
holding one core.

--edge N times the vector store directly (Qdrant Edge, read only) with N real questions (TAT-QA
queries) with and without a year filter; --profile N breaks search_documents down by stage in
process (the handler's stages called one by one, no MCP transport).

Each warm figure is measured twice, on two server processes started the same way: "SDK" is wall
time seen by the MCP SDK's stdio client around `session.call_tool` (which includes the client
parsing the answer into its models and validating structured content against the output schema);
"wire" is the time from writing the request line to reading the whole answer line
(benchmarks/wire_client.py; each answer is checked after its timer stops), i.e. the server's own
latency, which any client adds its own cost to. Beside them, the CPU milliseconds per call of the
server process (all its threads, from /proc) and of this client process: on a machine shared with
other jobs, wall time mostly measures the neighbours, CPU time much less. --server-profile runs
the warm server under cProfile (benchmarks/profiled_server.py) and prints where its event loop spends its time.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from serving.mcp.process import single_threaded_blas

single_threaded_blas()  # the in-process figures run the retrieval the way the server does (before numpy loads)

import anyio  # noqa: E402
import harness  # noqa: E402
from harness import cpu_hog, percentiles_ms, stage_timer  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from profiled_server import PROFILE_ENV  # noqa: E402
from serving_profile import profile_search  # noqa: E402
from timed_server import MARKS_ENV, spans  # noqa: E402
from wire_client import wire_cold_start, wire_latencies  # noqa: E402

from serving.retrieval.scope import Scope  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
QUERIES = [
    "How is value at risk estimated from historical returns?",
    "What does kurtosis say about fat tails?",
    "variance of a portfolio",
    "market impact of large orders",
    "multiple comparisons bias in backtests",
]


def _params(home: Path, warm_up: bool, profile: Path | None = None, marks: Path | None = None) -> StdioServerParameters:
    """The server's command: `profile`, under cProfile (profiled_server.py); `marks`, with its
    per-call timestamps (timed_server.py)."""
    env = {
        **os.environ,
        "QUANT_RAG_HOME": str(home),
        "HF_HUB_OFFLINE": "1",
        "QUANT_RAG_WARM_UP": "1" if warm_up else "0",
    }
    args = ["-m", "serving.server"]
    for path, variable, script in ((profile, PROFILE_ENV, "profiled_server.py"), (marks, MARKS_ENV, "timed_server.py")):
        if path is not None:
            env[variable] = str(path)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
            args = [str(REPO / "benchmarks" / script)]
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(REPO))


async def _call_seconds(session, name, arguments) -> float:
    """Wall seconds of one call through the SDK client (async: harness.timed is for plain calls)."""
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
                return {
                    "initialize_s": ready,
                    "first_answer_s": time.perf_counter() - start,
                    "server_cpu_s": children_cpu_seconds(),
                }


def children_cpu_seconds() -> float | None:
    """CPU seconds (user + system, all threads) used so far by this process's children — the
    server: on a loaded machine wall time mostly measures the neighbours, CPU time does not."""
    pid = os.getpid()
    try:
        children = [
            c
            for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            if any(
                name in Path(f"/proc/{c}/cmdline").read_bytes()
                for name in (b"serving.server", b"profiled_server", b"timed_server")
            )
        ]  # not the hog
        ticks = sum(
            sum(int(v) for v in Path(f"/proc/{c}/stat").read_text().rsplit(")", 1)[1].split()[11:13]) for c in children
        )
    except (OSError, ValueError):
        return None
    return ticks / os.sysconf("SC_CLK_TCK")


def evidence_session(hit: dict, quote: str) -> dict:
    """session_put's arguments for the evidence session verify_citations reads."""
    return {
        "name": "ev",
        "kind": "evidence",
        "provenance": "served",
        "value": {"items": [{"document_id": hit["document_id"], "quote": quote}] * 5},
    }


def set_up_calls(call) -> tuple[dict, str]:
    """The first search's top hit and a quote from it, and the evidence session (wire client)."""
    hit = call("search_documents", {"query": QUERIES[0]})["results"][0]
    quote = hit["text"][:100]
    call("session_put", evidence_session(hit, quote))
    return hit, quote


def call_arguments(hit: dict, quote: str) -> dict:
    """Per warm label: the arguments of its i-th call (after the set-up search and session_put)."""
    return {
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
        "session_put": lambda i: {
            "name": f"s{i}",
            "kind": "reading_list",
            "provenance": "served",
            "value": {"chunk_ids": [hit["chunk_id"]]},
        },
        "session_get": lambda i: {"name": "ev"},
        "session_list": lambda i: {},
        "session_delete": lambda i: {"name": f"s{i}"},
    }


async def warm_latencies(
    home: Path, repeat: int, tools: set[str] | None = None, profile: Path | None = None
) -> tuple[dict[str, list[float]], dict[str, dict]]:
    """Per label: the seconds of each call, and the CPU ms per call of the server and this client."""
    cpu: dict[str, dict] = {}

    def cpu_mark() -> tuple[float | None, float]:
        return children_cpu_seconds(), time.process_time()

    def cpu_since(label: str, mark: tuple[float | None, float]) -> None:
        server, client = cpu_mark()
        cpu[label] = {
            "server": None if server is None or mark[0] is None else round(1000 * (server - mark[0]) / repeat, 2),
            "client": round(1000 * (client - mark[1]) / repeat, 2),
        }

    with open(os.devnull, "w") as errlog:
        async with stdio_client(_params(home, warm_up=True, profile=profile), errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                search = await session.call_tool("search_documents", {"query": QUERIES[0]})
                hit = search.structured_content["results"][0]
                quote = hit["text"][:100]
                await session.call_tool("session_put", evidence_session(hit, quote))
                calls = call_arguments(hit, quote)
                times: dict[str, list[float]] = {}
                for label, make in calls.items():
                    if tools and label not in tools:
                        continue
                    tool = label.split("(")[0]
                    mark = cpu_mark()
                    times[label] = [await _call_seconds(session, tool, make(i)) for i in range(repeat)]
                    cpu_since(label, mark)
                pings = []  # the bare stdio round trip of this SDK, for scale
                mark = cpu_mark()
                for _ in range(repeat):
                    start = time.perf_counter()
                    await session.send_ping()
                    pings.append(time.perf_counter() - start)
                cpu_since("ping (transport floor)", mark)
                times["ping (transport floor)"] = pings
                return times, cpu


QUESTIONS = REPO / "bench" / "tatqa" / "queries.jsonl"
YEAR_FILTERS = ((2010, 2014), (2020, 2026))


@functools.cache  # one context per state: the Edge shard is opened once
def _engine(home: Path):
    from corpus.config import ServedConfig
    from corpus.state.layout import StateLayout
    from serving.mcp.server import ServingContext

    ctx = ServingContext(StateLayout(home), ServedConfig.from_env())
    ctx.ensure_coherent()
    return ctx


def edge_latency(home: Path, count: int) -> dict:
    """ms per direct store search (limit = candidate pool), unfiltered and per year filter."""
    ctx = _engine(home)
    engine = ctx.engine
    lines = QUESTIONS.read_text(encoding="utf-8").splitlines()[:count]
    vectors = [engine.parts.embedder.embed_query(json.loads(line)["text"]) for line in lines]
    pool = ctx.config.candidate_pool
    engine.parts.vectors.search(vectors[0], pool)  # first query opens segments
    runs = {"none": {}, **{f"year {a}-{b}": {"year_min": a, "year_max": b} for a, b in YEAR_FILTERS}}
    out = {"points": engine.parts.vectors.count_points(), "queries": len(vectors)}
    for label, bounds in runs.items():
        times = []
        for vector in vectors:
            start = time.perf_counter()
            engine.parts.vectors.search(vector, pool, **bounds)
            times.append(time.perf_counter() - start)
        out[label] = percentiles_ms(times)
    return out


def search_profile(home: Path, repeat: int, mode: str = "dense") -> dict:
    """ms per stage of search_documents, the stages of its handler called one by one."""
    from serving.answer.contract import SEARCH_WINDOW
    from serving.answer.served import passage_out
    from serving.retrieval.first_stage import lexical as bm25_search
    from serving.retrieval.selection import Candidate, by_late_interaction, reciprocal_rank_fusion, select
    from serving.toolkit.filters import resolve_filters
    from serving.tools import search_documents as tool

    ctx = _engine(home)
    engine, config = ctx.engine, ctx.config
    engine.parts.warm_up()
    engine.parts.bm25
    stages, timed = stage_timer()
    for i in range(repeat + 1):
        args = tool.SearchDocumentsInput(query=QUERIES[i % len(QUERIES)], mode=mode)
        total = time.perf_counter()
        scope, period, text, _ = timed("resolve_filters (period, newest_year)", resolve_filters, ctx, args, args.query)
        allowed = timed("documents_in_scope", engine.catalogue.documents_in_scope, scope)
        tokens = engine.parts.tokens if mode == "hybrid" and config.late_interaction else ()
        if tokens:  # the server's path: one run of the token graph gives the vector and the tokens
            vector, question = timed("embed_query (vector + tokens)", tokens[1].query, text)
        else:
            vector = timed("embed_query", engine.parts.embedder.embed_query, text)
        ranked = timed("vector search (pool)", engine.parts.vectors.search, vector, config.candidate_pool)
        pool = [Candidate(c, s) for c, s in ranked]
        if mode == "hybrid":
            lexical = timed(
                "bm25 search (pool)", partial(bm25_search, engine.parts), text, config.candidate_pool, allowed
            )
            pool = timed("rrf", reciprocal_rank_fusion, [pool, lexical], config.rrf_k)[: config.candidate_pool]
            if tokens:
                scores = timed("late interaction (MaxSim)", tokens[0].maxsim, question, [c.chunk_id for c in pool])
                pool = by_late_interaction(pool, scores)
        reader = engine.parts.reader
        hits = timed(
            "select",
            select,
            pool,
            reader.passages,
            reader.near_duplicates,
            limit=args.limit,
            per_document=config.per_document,
            min_chars=config.min_passage_chars,
        )
        results = timed(
            "passage_out x limit",
            lambda: [passage_out(reader, reader.passages[h.chunk_id], SEARCH_WINDOW, score=h.score) for h in hits],
        )
        evidence = ranked[0][1] if ranked else None
        out = timed(
            "output model + trace",
            tool.SearchDocumentsOutput,
            results=results,
            period=period,
            mode=mode,
            searched_text=[tool.SearchedInput(kind="question", text=text, weight=1.0, in_own_top=len(hits), share=1.0)],
            documents_in_scope=None,
            candidates=len(pool),
            reranked=False,
            late_interaction=bool(tokens),
            evidence=evidence,
            no_answer_likely=False,
            scope_provenance=None,
            trace=ctx.trace("search"),
        )
        timed("render text + json", lambda: (tool.render(out), out.model_dump_json()))
        stages.setdefault("handler total (sum)", []).append(time.perf_counter() - total)
        if i == 0:  # first round warms caches
            stages.clear()
    start = time.perf_counter()
    for i in range(repeat):
        tool.handle(ctx, tool.SearchDocumentsInput(query=QUERIES[i % len(QUERIES)], mode=mode))
    return {
        "mode": mode,
        "handle_mean_ms": 1000 * (time.perf_counter() - start) / repeat,
        "stages_ms": {k: percentiles_ms(v) for k, v in stages.items()},
    }


def mcp_figures(home: Path, repeat: int, tools: set[str] | None, profile: Path | None = None) -> dict:
    """Cold starts, warm per-tool p50/p95 over stdio, then in this process: Engine.retrieve on
    the same queries (and its ratio to the stdio search) and the call-path profile."""
    out = {
        "cold_corpus_status": anyio.run(cold_start, home, "corpus_status", {}),
        "cold_search": anyio.run(cold_start, home, "search_documents", {"query": QUERIES[0]}),
    }
    warm, cpu = anyio.run(warm_latencies, home, repeat, tools, profile)
    out["warm_ms"] = {label: percentiles_ms(v) for label, v in warm.items()}
    out["cpu_ms_per_call"] = cpu
    # The same server, timed at the wire (no SDK client parsing or schema validation in the span);
    # the warm one also stamps each call inside the server (timed_server.py), not the cold one.
    out["wire_cold_search"] = wire_cold_start(_params(home, warm_up=True), "search_documents", {"query": QUERIES[0]})
    marks = Path(tempfile.mkdtemp(prefix="server-marks-")) / "marks.json"
    labels = [label for label in warm if label in call_arguments({}, "")]
    ctx = _engine(home)
    engine, mode = ctx.engine, ctx.config.default_mode
    engine.parts.warm_up()
    engine.retrieve(QUERIES[0], mode, Scope(), limit=5)
    times: list[float] = []

    def retrieve(i: int) -> None:
        start = time.perf_counter()
        engine.retrieve(QUERIES[i % len(QUERIES)], mode, Scope(), limit=5)
        times.append(time.perf_counter() - start)

    # The same query in process right after each wire search: both figures of the ratio come from
    # the same moments, which this machine's drift (±30 % within minutes) cannot tilt.
    wire, wire_cpu = wire_latencies(
        _params(home, warm_up=True, marks=marks),
        repeat,
        labels,
        set_up_calls,
        call_arguments,
        between={"search_documents": retrieve},
    )
    if marks.exists():  # the last `repeat` searches: the measured ones, not the set-up search
        searches = spans(marks, "search_documents")
        out["server_spans_ms"] = {k: percentiles_ms(v[-repeat:]) for k, v in searches.items()}
        shutil.rmtree(marks.parent, ignore_errors=True)
    out["wire_ms"] = {label: percentiles_ms(v) for label, v in wire.items()}
    out["wire_cpu_ms_per_call"] = wire_cpu
    if not times:  # no wire search measured (--tools without it): time the queries on their own
        for i in range(repeat):
            retrieve(i)
    out["in_process_retrieve_ms"] = percentiles_ms(times)
    if "search_documents" in out["warm_ms"]:
        out["stdio_over_in_process"] = round(
            out["warm_ms"]["search_documents"]["p50"] / out["in_process_retrieve_ms"]["p50"], 2
        )
        out["wire_over_in_process"] = round(
            out["wire_ms"]["search_documents"]["p50"] / out["in_process_retrieve_ms"]["p50"], 2
        )
    out["profile_ms"] = profile_search(ctx, QUERIES, repeat)
    engine.close()  # the next condition's server opens the vector store
    return out


def print_figures(condition: str, r: dict) -> None:
    print(f"== {condition} ==")
    cold = (("cold_corpus_status", "SDK client"), ("cold_search", "SDK client"), ("wire_cold_search", "wire client"))
    for name, client in cold:
        cpu = r[name].get("server_cpu_s")
        print(
            f"{name} ({client}): initialize {r[name]['initialize_s']:.2f} s, first answer "
            f"{r[name]['first_answer_s']:.2f} s" + (f" (server CPU {cpu:.2f} s)" if cpu is not None else "")
        )
    print(
        "warm ms: SDK client = wall time around the MCP SDK's ClientSession call (its parsing and "
        "output-schema validation included); wire = request line written -> answer line read"
    )
    print(
        f"{'tool':<24}{'SDK p50':>9}{'SDK p95':>9}{'wire p50':>10}{'wire p95':>10}"
        "   CPU ms/call server, client: SDK | wire"
    )
    for label, figures in r["warm_ms"].items():
        wire = r.get("wire_ms", {}).get(label)
        line = f"{label:<24}{figures['p50']:>9.1f}{figures['p95']:>9.1f}"
        line += f"{wire['p50']:>10.1f}{wire['p95']:>10.1f}" if wire else f"{'-':>10}{'-':>10}"
        line += (
            f"   {_cpu(r.get('cpu_ms_per_call', {}).get(label))} | {_cpu(r.get('wire_cpu_ms_per_call', {}).get(label))}"
        )
        print(line)
    inproc = r["in_process_retrieve_ms"]
    print(f"{'Engine.retrieve in proc.':<24}{inproc['p50']:>9.1f}{inproc['p95']:>9.1f}")
    if "stdio_over_in_process" in r:
        print(
            f"search_documents / in-process retrieve (p50): SDK client {r['stdio_over_in_process']:.2f}, "
            f"wire {r['wire_over_in_process']:.2f}"
        )
    if r.get("server_spans_ms"):
        print(
            "inside the server, wire searches, p50 ms: "
            + ", ".join(f"{k} {v['p50']:.2f}" for k, v in r["server_spans_ms"].items())
        )
    print(
        "one search_documents call, p50 ms per stage: " + ", ".join(f"{k} {v:.2f}" for k, v in r["profile_ms"].items())
    )


def _cpu(figures: dict | None) -> str:
    if not figures:
        return "-"
    return ", ".join("-" if figures.get(k) is None else f"{figures[k]:.2f}" for k in ("server", "client"))


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__file__, __doc__, hog=True)
    parser.add_argument("--home", type=Path, default=None, help="state dir (default QUANT_RAG_HOME)")
    parser.add_argument(
        "--fixture", type=Path, default=None, help="build the small test state in this folder and measure it"
    )
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--tools", default=None, help="comma-separated warm labels to measure (default all)")
    parser.add_argument("--no-mcp", action="store_true", help="skip the MCP cold/warm measurements")
    parser.add_argument("--edge", type=int, default=0, metavar="N", help="direct vector-store timing, N questions")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="in-process search stage breakdown")
    parser.add_argument(
        "--server-profile",
        type=Path,
        default=None,
        metavar="PROF",
        help="run the warm server under cProfile, write its stats here and print the top",
    )
    args = parser.parse_args(argv)
    home = args.home or Path(os.environ.get("QUANT_RAG_HOME", "./var")).resolve()
    if args.fixture:
        sys.path[:0] = [str(REPO / "tests" / "serving"), str(REPO / "tests")]  # conftest imports shared_state
        from conftest import build_state  # the test suite's fixture state (pipeline code, three lectures)

        home = args.fixture
        if not (home / "signature.json").exists():
            build_state(home)
    report, steal = {"home": str(home)}, harness.StealMeter()
    if not args.no_mcp:
        os.environ.setdefault("QUANT_RAG_HOME", str(home))
        tools = set(args.tools.split(",")) if args.tools else None
        for condition in harness.conditions(args):
            with cpu_hog(condition == "hog"):
                profile = args.server_profile if condition == "idle" else None
                report[condition] = mcp_figures(home, args.repeat, tools, profile)
    os.environ.setdefault("QUANT_RAG_HOME", str(home))
    if args.edge:
        report["edge_ms"] = edge_latency(home, args.edge)
    if args.profile:
        report["profile_dense"] = search_profile(home, args.profile, "dense")
        report["profile_hybrid"] = search_profile(home, args.profile, "hybrid")
    args.json = args.json or args.no_mcp  # the in-process figures have no table of their own
    harness.emit(args, report, lines_of(args, report), meter=steal)
    return 0


def lines_of(args, report: dict) -> list[str]:
    """The human-readable report: per condition the cold starts and the warm table, then the rest."""
    import contextlib
    import io

    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        for condition in ("idle", "hog"):
            if condition in report:
                print_figures(condition, report[condition])
        if args.server_profile and args.server_profile.exists():
            import pstats

            print(f"server event loop, top by own time ({args.server_profile}):")
            pstats.Stats(str(args.server_profile), stream=sys.stdout).sort_stats("tottime").print_stats(15)
        for key in ("edge_ms", "profile_dense", "profile_hybrid"):
            if key in report:
                print(f"{key}: {json.dumps(report[key], indent=1)}")
    return text.getvalue().rstrip("\n").splitlines()


if __name__ == "__main__":
    sys.exit(main())
