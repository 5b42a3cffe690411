"""The MCP server end to end: a real `python -m serving.server` subprocess driven over stdio by
the SDK's client — the tool set, schemas and prompt, incoherent states, the pipeline's state.
Each tool's own behaviour is tested in tests/serving/tools/test_<tool>.py."""

from __future__ import annotations

import pytest
from mcp_stdio import assert_error, call, run_calls, run_session

from corpus.state.layout import StateLayout, atomic_write_json
from corpus.state.signature import compute_signature

TOOLS = {
    "search_documents",
    "get_passage",
    "list_documents",
    "timeline",
    "verify_citation",
    "verify_citations",
    "corpus_status",
    "search_graph",
    "expand_entity",
    "connect_entities",
    "session_put",
    "session_get",
    "session_list",
    "session_delete",
}
WRITERS = {"session_put", "session_delete"}


def test_tool_set_schemas_and_prompt(served_home):
    async def scenario(session):
        prompt = await session.get_prompt("research_protocol", {"question": "Is VaR subadditive?"})
        return (
            (await session.list_tools()).tools,
            (await session.list_prompts()).prompts,
            prompt.messages[0].content.text,
            session.instructions,
        )

    tools, prompts, protocol, instructions = run_session(served_home, scenario, warm_up=False)
    for word in ("invalid_argument", "not_found", "incoherent_state", "`rebuild`", "corpus_status"):
        assert word in instructions, word  # the error model, where every client shows it
    assert {t.name for t in tools} == TOOLS and len(tools) == len(TOOLS)
    for tool in tools:
        schema = tool.input_schema
        assert schema.get("additionalProperties") is False, tool.name
        for name, prop in schema.get("properties", {}).items():
            assert prop.get("description"), (tool.name, name)
        assert tool.output_schema and "trace" in tool.output_schema["properties"], tool.name
        assert tool.title and "Errors: " in tool.description, tool.name  # wording: tools/test_descriptions.py
        assert tool.annotations.read_only_hint is (tool.name not in WRITERS), tool.name
    mode = next(t for t in tools if t.name == "search_documents").input_schema["properties"]["mode"]
    enums = [option.get("enum") for option in mode.get("anyOf", [mode]) if option.get("enum")]
    assert enums == [["dense", "bm25", "hybrid"]]
    assert [p.name for p in prompts] == ["research_protocol"]
    for step in ("English", "get_passage", "cite", "verify_citation", "year_min", "abstain", "Is VaR subadditive?"):
        assert step.lower() in protocol.lower(), step


def test_bad_arguments_are_structured_errors_and_the_server_keeps_answering(served_home):
    """Each tool's own refusals are in tests/serving/tools/; here, a run of them across tools
    leaves the process answering."""

    async def scenario(c):
        assert_error(await c("search_documents", {"query": 42}), "invalid_argument", "query")
        assert_error(await c("get_passage", {"chunk_id": "../../etc/passwd"}), "invalid_argument", "chunk_id")
        assert_error(await c("verify_citations", {}), "invalid_argument")
        assert_error(await c("session_get", {"name": "nothing-here"}), "not_found")
        assert_error(await c("no_such_tool", {}), "invalid_argument", "name")  # not a bare text error
        assert_error(
            await c("search_graph", {"query": "var", "entity_type": "planet"}), "invalid_argument", "entity_type"
        )
        return await c("corpus_status", {})

    status = run_calls(served_home, scenario, warm_up=False)
    assert not status.is_error and status.structured_content["coherent"]


def test_incoherent_state_makes_every_tool_but_corpus_status_name_the_rebuild(served_copy):
    layout = StateLayout(served_copy)
    atomic_write_json(layout.signature_file, {"signature": "000000000000"})

    async def scenario(session):
        tools = (await session.list_tools()).tools
        return {t.name: await session.call_tool(t.name, {}) for t in tools}

    results = run_session(served_copy, scenario, warm_up=False)
    assert set(results) == TOOLS
    status = results.pop("corpus_status")
    assert not status.is_error, status.content[0].text
    report = status.structured_content
    assert report["coherent"] is False and report["rebuild"] == ["quant-rag ingest"]
    assert "recorded signature is stale" in report["problem"] and report["documents"] == 3
    assert "NOT COHERENT" in status.content[0].text
    for name, result in results.items():
        error = assert_error(result, "incoherent_state", "recorded signature")
        assert "quant-rag ingest" in error["rebuild"], name


@pytest.mark.slow
def test_the_pipeline_state_is_served(ingested_home):
    """The same server on a state the real Dagster pipeline ingested (PDFs and Markdown)."""

    async def scenario(session):
        tools = {t.name: t for t in (await session.list_tools()).tools}
        status = (await call(session, tools, "corpus_status", {})).structured_content
        search = (
            await call(session, tools, "search_documents", {"query": "limit order book price levels", "limit": 5})
        ).structured_content
        hit = next(p for p in search["results"] if p["cite"]["pages"])
        passage = (await call(session, tools, "get_passage", {"chunk_id": hit["chunk_id"]})).structured_content
        verify = (
            await call(
                session, tools, "verify_citation", {"document_id": hit["document_id"], "quote": hit["text"][:120]}
            )
        ).structured_content
        timeline = (await call(session, tools, "timeline", {"query": "volatility"})).structured_content
        return status, search, passage, verify, timeline

    status, search, passage, verify, timeline = run_session(ingested_home, scenario)
    assert status["coherent"] and status["documents"] >= 5
    assert status["corpus_signature"] == compute_signature(StateLayout(ingested_home))
    assert search["results"] and passage["passage"]["anchor"]["document_id"] == passage["passage"]["document_id"]
    assert verify["status"] in ("verified", "verified_normalised")
    years = [g["year"] for g in timeline["years"] if g["year"] is not None]
    assert years == sorted(years)
