"""What tools/list tells an agent: every tool and parameter described, every number quoted equal
to the value the server runs with, every error code a tool lists one it really answers.

The behaviour each description claims is pinned in the tool's own test module; here, the words.
"""

from __future__ import annotations

import re
from typing import get_args

import pytest

from corpus.config import ServedConfig
from corpus.graph.graph_store import MIN_CONTAINING_QUERY, TOP_DOCUMENTS
from corpus.state.layout import StateLayout
from serving.answer.contract import PASSAGE_WINDOW, SEARCH_WINDOW, TIMELINE_PREVIEW
from serving.answer.errors import ErrorCode
from serving.citation.verify import MAX_BATCH, MAX_BATCH_BYTES, MAX_QUOTE_CHARS, MIN_QUOTE_CHARS
from serving.mcp import prompt
from serving.mcp.toolset import all_tools
from serving.sessions.kinds import MAX_LIST_LENGTH
from serving.sessions.store import MAX_ITEMS_ENV, MAX_TOTAL_BYTES, MAX_VALUE_BYTES
from tests.mcp_stdio import error_of

MIN_WORDS, MAX_CHARS = 25, 1500  # a purpose, when (not) to use it, what it returns, errors
STOP = {"a", "an", "the", "of", "to", "in", "or", "and", "for", "on", "by", "its", "is"}


def _context(tmp_path, **config):
    from serving.mcp.server import ServingContext

    return ServingContext(StateLayout(tmp_path), ServedConfig(**config))  # opens nothing


def _descriptions(ctx) -> dict[str, str]:
    return {spec.name: spec.describe(ctx) for spec in all_tools()}


# session_put's stored kinds: their fields are the filters and quote items described where
# search_documents and verify_citations take them (session_put's `value` says so).
STORED_KINDS = {"Scope", "Evidence", "EvidenceItem"}


def _properties(schema: dict):
    """(path, property schema) of every argument, nested models ($defs) included."""
    for model in [schema, *(m for m in schema.get("$defs", {}).values() if m.get("title") not in STORED_KINDS)]:
        for name, prop in model.get("properties", {}).items():
            yield f"{model.get('title')}.{name}", name, prop


def test_every_tool_says_what_it_is_for_when_to_use_it_and_how_it_fails(tmp_path):
    from serving.mcp.server import INSTRUCTIONS

    codes = set(get_args(ErrorCode))
    for name, text in _descriptions(_context(tmp_path)).items():
        assert MIN_WORDS <= len(text.split()) and len(text) <= MAX_CHARS, (name, len(text))
        assert "Use it" in text, name  # usage guidelines
        body, errors = text.split(" Errors: ")
        listed = re.findall(r"(?:^|; )([a-z_]+)", errors)
        assert listed and set(listed) <= codes and "invalid_argument" in listed, (name, listed)
        assert "incoherent_state" not in listed, name  # shared by all but corpus_status: said once, below
    for code in codes:  # the error model is stated once, where every client shows it
        assert code in INSTRUCTIONS, code
    for key in ("code", "message", "fields", "rebuild", "corpus_status"):
        assert key in INSTRUCTIONS, key
    assert "on incoherent_state every tool but corpus_status refuses" in INSTRUCTIONS


def test_every_parameter_has_a_description_that_says_more_than_its_name():
    for spec in all_tools():
        for path, name, prop in _properties(spec.input_model.model_json_schema()):
            description = prop.get("description", "")
            words = {w.lower().strip(".,:;()`'\"") for w in description.split()}
            beyond_name = words - set(name.lower().split("_")) - STOP - {""}
            assert len(description.split()) >= 3 and len(beyond_name) >= 3, (spec.name, path, description)


def test_entity_name_parameters_say_which_names_are_accepted():
    specs = {s.name: s for s in all_tools()}
    for tool, argument in (("expand_entity", "entity_name"), ("connect_entities", "entity_a")):
        text = specs[tool].input_model.model_json_schema()["properties"][argument]["description"]
        for word in ("canonical", "alias", "acronym", "case", "search_graph"):
            assert word in text, (tool, word)


def test_numbers_quoted_are_the_configured_ones(tmp_path, monkeypatch):
    monkeypatch.setenv(MAX_ITEMS_ENV, "7")
    text = _descriptions(
        _context(tmp_path, default_mode="bm25", per_document=3, fill_limit=False, no_answer_threshold=0.5)
    )
    assert "mode=bm25 unless" in text["search_documents"] and "mode=bm25 unless" in text["timeline"]
    assert "at most 3 per document:" in text["search_documents"] and "at least 0.5," in text["search_documents"]
    assert "at most 3 per document" in text["search_graph"]
    for name in ("session_put", "session_list"):  # where entries are added or counted
        assert f"at most 7 ({MAX_ITEMS_ENV})" in text[name], name
    monkeypatch.delenv(MAX_ITEMS_ENV)
    default = ServedConfig()
    text = _descriptions(_context(tmp_path))
    search = text["search_documents"]
    assert (
        f"mode={default.default_mode} unless" in search
        and default.fill_limit
        and f"at most {default.per_document} per document (more when fewer documents match)" in search
    )
    assert f"at least {default.no_answer_threshold}," in search and f"{SEARCH_WINDOW:,} characters" in search
    assert "no_answer_likely" in search and "`period`" in search
    assert f"at most 64 ({MAX_ITEMS_ENV})" in text["session_put"]
    for number in (MAX_VALUE_BYTES, MAX_TOTAL_BYTES, MAX_LIST_LENGTH):
        assert f"{number:,}" in text["session_put"], number
    assert f"{MAX_TOTAL_BYTES:,}" in text["session_list"]
    assert f"{PASSAGE_WINDOW:,} characters" in text["get_passage"] and "whole" not in text["get_passage"]
    assert f"{TIMELINE_PREVIEW}-character preview" in text["timeline"]
    assert f"{MIN_QUOTE_CHARS} to {MAX_QUOTE_CHARS:,} characters" in text["verify_citation"]
    assert f"up to {MAX_BATCH} quotes ({MAX_BATCH_BYTES:,} bytes" in text["verify_citations"]
    assert f"up to {TOP_DOCUMENTS} documents" in text["connect_entities"]
    assert f"at least {MIN_CONTAINING_QUERY} characters" in text["expand_entity"]
    assert "inclusive" in text["list_documents"] and "undated documents last" in text["list_documents"]


def test_one_name_for_the_paging_field():
    protocol = prompt.research_protocol("q")
    assert "next_offset" in protocol and "continuation" not in protocol
    specs = {s.name: s for s in all_tools()}
    offset = specs["get_passage"].input_model.model_json_schema()["properties"]["offset"]
    assert "next_offset" in offset["description"]
    served = specs["search_documents"].output_model.model_json_schema()["$defs"]["PassageOut"]["properties"]
    assert "offset" in served["next_offset"]["description"] and "next_offset" in served["continuation"]["description"]


def test_session_kinds_are_the_ones_a_tool_accepts():
    specs = {s.name: s for s in all_tools()}
    kinds = specs["session_put"].input_model.model_json_schema()["properties"]["kind"]["enum"]
    assert sorted(kinds) == ["evidence", "scope"]
    assert "scope" in specs["search_documents"].input_model.model_fields
    assert "scope" in specs["timeline"].input_model.model_fields
    assert "evidence" in specs["verify_citations"].input_model.model_fields


@pytest.mark.parametrize("code", ["not_a_code", "Not_Found"])
def test_a_spec_cannot_list_an_error_code_the_server_lacks(code):
    spec = all_tools()[0]
    with pytest.raises(ValueError, match="unknown error code"):
        type(spec)(**{**spec.__dict__, "errors": ((code, "never"),)})


UNKNOWN_DOC, UNKNOWN_CHUNK = "doc-0000000000000000", "chunk-0000000000000000"


def test_every_listed_error_is_one_the_tool_answers(context, invoke):
    """Each (tool, code) of an "Errors:" line, produced by a call of that tool."""
    chunk = next(iter(context.engine.parts.reader.passages.values()))
    invoke(
        "session_put",
        {
            "name": "ev-only",
            "kind": "evidence",
            "provenance": "served",
            "value": {"items": [{"document_id": chunk.document_id, "quote": chunk.text[:40]}]},
        },
    )
    calls = {
        ("search_documents", "not_found"): {"query": "risk", "document_id": UNKNOWN_DOC},
        ("search_documents", "invalid_argument"): {"query": "risk", "scope": {"session": "ev-only"}},
        ("timeline", "not_found"): {"query": "risk", "scope": {"session": "absent"}},
        ("timeline", "invalid_argument"): {"query": "risk", "year_min": 2019, "year_max": 2015},
        ("get_passage", "not_found"): {"chunk_id": UNKNOWN_CHUNK},
        ("get_passage", "invalid_argument"): {"chunk_id": chunk.chunk_id, "offset": len(chunk.text) + 1},
        ("list_documents", "invalid_argument"): {"year_min": 2019, "year_max": 2015},
        ("verify_citation", "not_found"): {"document_id": UNKNOWN_DOC, "quote": "a quote long enough"},
        ("verify_citation", "invalid_argument"): {"document_id": chunk.document_id, "quote": "too short"},
        ("verify_citations", "not_found"): {"evidence": {"session": "absent"}},
        ("verify_citations", "invalid_argument"): {},
        ("session_put", "invalid_argument"): {
            "name": "s",
            "kind": "scope",
            "provenance": "served",
            "value": {"items": [{"document_id": UNKNOWN_DOC, "quote": "a quote long enough"}]},
        },
        ("session_put", "not_found"): {
            "name": "s",
            "kind": "evidence",
            "provenance": "served",
            "value": {"items": [{"document_id": UNKNOWN_DOC, "quote": "a quote long enough"}]},
        },
        ("session_get", "not_found"): {"name": "absent"},
    }
    assert set(calls) == {(s.name, code) for s in all_tools() for code in s.error_codes}
    for (tool, code), arguments in calls.items():
        result = invoke(tool, arguments)
        assert result.is_error and error_of(result)["code"] == code, (tool, code, result)
