"""The MCP server end to end: a real `python -m serving.server` subprocess driven over stdio by
the SDK's client. Structured results are checked against each tool's published output schema."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import jsonschema
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from corpus.config import ServedConfig
from corpus.signature import compute_signature
from corpus.state import StateLayout, atomic_write_json

REPO = Path(__file__).resolve().parents[2]
TOOLS = {"search_documents", "get_passage", "list_documents", "timeline", "verify_citation",
         "verify_citations", "corpus_status", "search_graph", "expand_entity", "connect_entities",
         "session_put", "session_get", "session_list", "session_delete"}
WRITERS = {"session_put", "session_delete"}
MAX_DESCRIPTION = 1000
TRACE_KEYS = {"request_id", "server_version", "contract_version", "corpus_signature",
              "config_hash", "window"}


def run_session(home: Path, scenario, warm_up: bool = True):
    """Start the server on `home`, run `scenario(session)` and return what it returns."""
    env = {**os.environ, "QUANT_RAG_HOME": str(home), "HF_HUB_OFFLINE": "1",
           "OMP_NUM_THREADS": "1", "QUANT_RAG_WARM_UP": "1" if warm_up else "0"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "serving.server"],
                                   env=env, cwd=str(REPO))
    result = {}

    async def main():
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    result["value"] = await scenario(session)

    anyio.run(main)
    return result["value"]


async def call(session, tools, name, arguments):
    """Call a tool; a success must carry structured content valid against its output schema."""
    result = await session.call_tool(name, arguments)
    if not result.is_error:
        jsonschema.validate(result.structured_content, tools[name].output_schema)
        assert set(result.structured_content["trace"]) == TRACE_KEYS
        assert result.content and result.content[0].text.strip()
    return result


def assert_error(result, code: str, *needles: str) -> dict:
    assert result.is_error, result.content[0].text
    error = result.structured_content["error"]
    assert error["code"] == code, error
    for needle in needles:
        assert needle in error["message"] or needle in error["fields"], error
    assert "Traceback" not in result.content[0].text
    assert set(result.structured_content["trace"]) == TRACE_KEYS
    return error


def test_tool_set_schemas_and_prompt(served_home):
    async def scenario(session):
        prompt = await session.get_prompt("research_protocol", {"question": "Is VaR subadditive?"})
        return ((await session.list_tools()).tools, (await session.list_prompts()).prompts,
                prompt.messages[0].content.text)

    tools, prompts, protocol = run_session(served_home, scenario, warm_up=False)
    assert {t.name for t in tools} == TOOLS and len(tools) == len(TOOLS)
    for tool in tools:
        schema = tool.input_schema
        assert schema.get("additionalProperties") is False, tool.name
        for name, prop in schema.get("properties", {}).items():
            assert prop.get("description"), (tool.name, name)
        assert tool.output_schema and "trace" in tool.output_schema["properties"], tool.name
        assert tool.title and 80 < len(tool.description) <= MAX_DESCRIPTION, tool.name
        assert tool.annotations.read_only_hint is (tool.name not in WRITERS), tool.name
    mode = next(t for t in tools if t.name == "search_documents").input_schema["properties"]["mode"]
    enums = [option.get("enum") for option in mode.get("anyOf", [mode]) if option.get("enum")]
    assert enums == [["dense", "bm25", "hybrid"]]
    assert [p.name for p in prompts] == ["research_protocol"]
    for step in ("English", "get_passage", "cite", "verify_citation", "year_min", "abstain",
                 "Is VaR subadditive?"):
        assert step.lower() in protocol.lower(), step


def test_every_tool_answers_with_valid_structured_content(served_home):
    async def scenario(session):
        tools = {t.name: t for t in (await session.list_tools()).tools}
        out = {}
        status = await call(session, tools, "corpus_status", {})
        out["status"] = status.structured_content
        docs = await call(session, tools, "list_documents", {"limit": 2})
        out["documents"] = docs.structured_content
        search = await call(session, tools, "search_documents",
                            {"query": "How is value at risk estimated from past returns?", "limit": 4})
        out["search"] = search.structured_content
        hit = search.structured_content["results"][0]
        out["passage"] = (await call(session, tools, "get_passage",
                                     {"chunk_id": hit["chunk_id"], "neighbours": 1})).structured_content
        out["hybrid"] = (await call(session, tools, "search_documents",
                                    {"query": "kurtosis of papers published before 2018",
                                     "mode": "hybrid"})).structured_content
        out["bm25"] = (await call(session, tools, "search_documents",
                                  {"query": "kurtosis", "mode": "bm25", "author": "EVGENIA"})).structured_content
        out["timeline"] = (await call(session, tools, "timeline", {"query": "variance"})).structured_content
        quote = hit["text"][:80]
        out["verify"] = (await call(session, tools, "verify_citation",
                                    {"document_id": hit["document_id"], "quote": quote})).structured_content
        out["verify_bad"] = (await call(session, tools, "verify_citation", {
            "document_id": hit["document_id"],
            "quote": "Value at Risk is a useless concept in portfolio risk management"})).structured_content
        await call(session, tools, "session_put", {
            "name": "ev", "kind": "evidence", "provenance": "served",
            "value": {"items": [{"document_id": hit["document_id"], "quote": quote}]}})
        await call(session, tools, "session_put", {
            "name": "recent", "kind": "scope", "provenance": "user_pasted", "value": {"year_min": 2016}})
        out["scoped"] = (await call(session, tools, "search_documents",
                                    {"query": "skewness", "scope": {"session": "recent"}})).structured_content
        out["batch"] = (await call(session, tools, "verify_citations",
                                   {"evidence": {"session": "ev"}})).structured_content
        out["get"] = (await call(session, tools, "session_get", {"name": "ev"})).structured_content
        out["list"] = (await call(session, tools, "session_list", {})).structured_content
        out["delete"] = (await call(session, tools, "session_delete", {"name": "ev"})).structured_content
        out["graph"] = (await call(session, tools, "search_graph", {"query": "value at risk"})).structured_content
        out["expand"] = (await call(session, tools, "expand_entity", {"entity_name": "variance"})).structured_content
        out["connect"] = (await call(session, tools, "connect_entities",
                                     {"entity_a": "standard deviation", "entity_b": "variance"})).structured_content
        return out

    out = run_session(served_home, scenario)
    layout = StateLayout(served_home)
    signature = compute_signature(layout)
    assert out["status"]["coherent"] and out["status"]["corpus_signature"] == signature
    assert out["status"]["reranker"] == "none" and out["status"]["documents"] == 3
    assert out["status"]["metadata_coverage"]["undated"] == 1
    years = [d["year"] for d in out["documents"]["documents"]]
    assert years == sorted(years, reverse=True) and out["documents"]["next_offset"] == 2
    search = out["search"]
    assert search["mode"] == ServedConfig().default_mode and search["results"] and search["trace"]["window"] == 10_000
    assert search["trace"]["corpus_signature"] == signature
    for p in search["results"]:
        assert set(p) >= {"chunk_id", "document_id", "score", "cite", "section", "text", "anchor",
                          "flags", "truncated", "remaining_chars", "continuation"}
        start, end = p["anchor"]["ranges"][0]
        canonical = layout.canonical_text(p["document_id"]).read_text(encoding="utf-8")
        assert canonical[start:end].startswith(p["text"][:200])
    per_doc = [p["document_id"] for p in search["results"]]
    assert max(per_doc.count(d) for d in per_doc) <= 2
    assert out["passage"]["passage"]["chunk_id"] == search["results"][0]["chunk_id"]
    assert out["passage"]["neighbours"] and out["passage"]["trace"]["window"] == 15_000
    hybrid = out["hybrid"]
    assert hybrid["mode"] == "hybrid" and hybrid["period"]["year_max"] == 2017
    assert hybrid["period"]["clause"] and "2018" not in hybrid["searched_text"]
    assert hybrid["documents_in_scope"] == 1  # 2015 only: 2019 is out, the undated one excluded
    assert out["bm25"]["results"] and all("Nitishinskaya" in " ".join(p["cite"]["authors"])
                                           for p in out["bm25"]["results"])
    assert out["timeline"]["years"][-1]["year"] is None or all(
        g["year"] is not None for g in out["timeline"]["years"])
    assert out["verify"]["status"] == "verified" and out["verify"]["offsets"]
    assert out["verify_bad"]["status"] == "not_found" and out["verify_bad"]["closest"]
    assert out["scoped"]["period"]["year_min"] == 2016 and out["scoped"]["period"]["source_min"] == "session"
    assert out["batch"]["summary"]["verified"] == 1 and out["batch"]["evidence_provenance"] == "served"
    assert out["get"]["entry"]["provenance"] == "served"
    assert {e["name"] for e in out["list"]["entries"]} == {"ev", "recent"}
    assert out["delete"]["deleted"] is True
    assert out["graph"]["results"] and out["graph"]["entities"][0]["name"] == "value at risk"
    assert out["expand"]["entity"]["name"] == "variance" and out["expand"]["co_mentions"]
    assert out["connect"]["results"] and out["connect"]["documents"]


def test_bad_arguments_are_structured_errors_and_the_server_keeps_answering(served_home):
    async def scenario(session):
        tools = {t.name: t for t in (await session.list_tools()).tools}
        c = lambda name, args: call(session, tools, name, args)  # noqa: E731
        assert_error(await c("search_documents", {"query": 42}), "invalid_argument", "query")
        assert_error(await c("search_documents", {"query": "var", "limit": 1000}), "invalid_argument", "limit")
        assert_error(await c("search_documents", {"query": ""}), "invalid_argument", "query")
        assert_error(await c("search_documents", {"query": "   "}), "invalid_argument", "query")
        assert_error(await c("search_documents", {"query": "x" * 100_000}), "invalid_argument", "query")
        assert_error(await c("search_documents", {"query": "var", "mode": "magic"}), "invalid_argument", "mode")
        assert_error(await c("search_documents", {"query": "var", "colour": "red"}),
                     "invalid_argument", "unknown argument")
        assert_error(await c("search_documents", {"query": "var", "year_min": 2020, "year_max": 2010}),
                     "invalid_argument")
        assert_error(await c("get_passage", {"chunk_id": "chunk-0000000000000000"}), "not_found", "chunk_id")
        assert_error(await c("get_passage", {"chunk_id": "../../etc/passwd"}), "invalid_argument", "chunk_id")
        assert_error(await c("verify_citation", {"document_id": "doc-XYZ", "quote": "a quote long enough"}),
                     "invalid_argument", "document_id")
        assert_error(await c("verify_citation", {"document_id": "doc-0000000000000000",
                                                 "quote": "a quote long enough"}), "not_found")
        assert_error(await c("verify_citation", {"document_id": "doc-0000000000000000", "quote": "short"}),
                     "invalid_argument", "quote")
        assert_error(await c("verify_citations", {}), "invalid_argument")
        assert_error(await c("session_get", {"name": "nothing-here"}), "not_found")
        assert_error(await c("session_put", {"name": "bad name!", "kind": "scope", "provenance": "served",
                                             "value": {"year_min": 2000}}), "invalid_argument", "name")
        assert_error(await c("session_put", {"name": "s", "kind": "scope", "provenance": "recalled",
                                             "value": {"year_min": 2000}}), "invalid_argument", "provenance")
        assert_error(await c("search_graph", {"query": "var", "entity_type": "planet"}),
                     "invalid_argument", "entity_type")
        assert_error(await c("list_documents", {"limit": 0}), "invalid_argument", "limit")
        status = await c("corpus_status", {})
        return status

    status = run_session(served_home, scenario, warm_up=False)
    assert not status.is_error and status.structured_content["coherent"]


def test_incoherent_state_makes_every_tool_name_the_rebuild(served_copy):
    layout = StateLayout(served_copy)
    atomic_write_json(layout.signature_file, {"signature": "000000000000"})

    async def scenario(session):
        tools = (await session.list_tools()).tools
        return {t.name: await session.call_tool(t.name, {}) for t in tools}

    results = run_session(served_copy, scenario, warm_up=False)
    assert set(results) == TOOLS
    for name, result in results.items():
        error = assert_error(result, "incoherent_state", "recorded signature")
        assert "quant-rag ingest" in error["rebuild"], name


@pytest.mark.slow
def test_the_pipeline_state_is_served(ingested_home):
    """The same server on a state the real Dagster pipeline ingested (PDFs and Markdown)."""
    async def scenario(session):
        tools = {t.name: t for t in (await session.list_tools()).tools}
        status = (await call(session, tools, "corpus_status", {})).structured_content
        search = (await call(session, tools, "search_documents",
                             {"query": "limit order book price levels", "limit": 5})).structured_content
        hit = next(p for p in search["results"] if p["cite"]["pages"])
        passage = (await call(session, tools, "get_passage", {"chunk_id": hit["chunk_id"]})).structured_content
        verify = (await call(session, tools, "verify_citation", {
            "document_id": hit["document_id"], "quote": hit["text"][:120]})).structured_content
        timeline = (await call(session, tools, "timeline", {"query": "volatility"})).structured_content
        return status, search, passage, verify, timeline

    status, search, passage, verify, timeline = run_session(ingested_home, scenario)
    assert status["coherent"] and status["documents"] >= 5
    assert status["corpus_signature"] == compute_signature(StateLayout(ingested_home))
    assert search["results"] and passage["passage"]["anchor"]["document_id"] == passage["passage"]["document_id"]
    assert verify["status"] in ("verified", "verified_normalised")
    years = [g["year"] for g in timeline["years"] if g["year"] is not None]
    assert years == sorted(years)
