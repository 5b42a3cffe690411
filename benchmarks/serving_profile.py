"""Where one search_documents call spends its time, stage by stage, as the stdio server runs it.

The stages are the server's own call path (serving.mcp.server.call_tool and the SDK's conversion and
encoding of the result) called one at a time in process, so each is timed alone:
  retrieval      Engine.retrieve (embedding, vector search, BM25, fusion, selection)
  filters        argument validation, coherence gate, period and scope resolution
  structured     passage_out per hit + the output model (includes the trace)
  trace          the trace alone (already inside `structured`)
  dump           the structured content as JSON-ready dicts
  text           the rendered text block
  sdk_result     the SDK checking the CallToolResult against the negotiated protocol version's
                 result model and dumping it (mcp_types.methods.serialize_server_result)
  json           the JSON-RPC response → the line written to stdout
  client_validate  the SDK *client* checking structured content against the published schema
                 (jsonschema; paid by the agent's host, not the server, but inside its wall time)
  client_validate_refs  the same against the schema with its `$ref`s (as published before they
                 were inlined), for comparison; not in `total`

What the running server spends per call outside these stages (the SDK's request handling, the
transport, a worker thread's hand-over) shows in serving_latency.py's per-call server CPU, read
from /proc, and in its --server-profile (cProfile of the server's event loop).
"""

from __future__ import annotations

import time

from harness import percentile, stage_timer

QUERIES_DEFAULT = ("How is value at risk estimated from historical returns?",)


def profile_search(context, queries, repeat: int) -> dict:
    """ms p50 per stage over `repeat` calls of search_documents (after one warm-up round)."""
    import jsonschema
    from mcp_types import CallToolResult, JSONRPCResponse, TextContent
    from mcp_types.methods import serialize_server_result
    from mcp_types.version import LATEST_HANDSHAKE_VERSION

    from serving.mcp.listing import output_schema
    from serving.toolkit.search import SearchRequest
    from serving.toolkit.search import search as run_search
    from serving.tools import search_documents as search

    def validator(schema):
        return jsonschema.validators.validator_for(schema)(schema)

    client = validator(output_schema(search.SPEC))
    client_refs = validator(search.SearchDocumentsOutput.model_json_schema())
    stages, timed = stage_timer()

    for i in range(repeat + 1):
        query = queries[i % len(queries)]
        start = time.perf_counter()

        def request():
            context.ensure_coherent()
            args = search.SearchDocumentsInput.model_validate({"query": query})
            return SearchRequest(args.query, args, args.mode, args.limit)

        # the use case (filters, retrieval, abstention), then the tool's structured answer
        result = timed("search (use case)", run_search, context, timed("request", request))
        out = timed("structured", search.build_output, context, result)
        timed("trace", context.trace, "search")
        structured = timed("dump", search.SearchDocumentsOutput.model_dump, out, mode="json")
        rendered = timed("text", search.render, out)
        result = CallToolResult(content=[TextContent(type="text", text=rendered)], structured_content=structured)
        body = timed(
            "sdk_result",
            lambda: serialize_server_result(
                "tools/call", LATEST_HANDSHAKE_VERSION, result.model_dump(by_alias=True, mode="json", exclude_none=True)
            ),
        )
        timed(
            "json",
            lambda: JSONRPCResponse(jsonrpc="2.0", id=i, result=body).model_dump_json(
                by_alias=True, exclude_unset=True
            ),
        )
        stages.setdefault("total", []).append(time.perf_counter() - start)
        timed("client_validate", lambda: list(client.iter_errors(structured)))
        timed("client_validate_refs", lambda: list(client_refs.iter_errors(structured)))
        if i == 0:
            stages.clear()
    summed = {k: v for k, v in stages.items() if k not in ("total", "trace", "client_validate", "client_validate_refs")}
    figures = {k: round(1000 * percentile(v, 50), 3) for k, v in stages.items()}
    after = (v for k, v in summed.items() if k not in ("request", "search (use case)"))
    figures["after_search"] = round(sum(1000 * percentile(v, 50) for v in after), 3)
    return figures
