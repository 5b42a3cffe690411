"""Errors an agent can act on, and the coherence gate / doctor."""

from __future__ import annotations

import json
import shutil

import pytest
from pydantic import BaseModel

from corpus.config import ServedConfig
from corpus.state.layout import StateLayout, atomic_write_json, read_json
from serving.answer.errors import NotFound, describe_validation_error
from serving.cli import EXIT_FAILED, EXIT_OK, doctor
from serving.coherence import INGEST_COMMAND, check_state
from serving.toolkit.tool_spec import ToolInput, ToolSpec
from tests.mcp_stdio import error_of, error_text


class _Input(ToolInput):
    n: int


class _Output(BaseModel):
    n: int


def _spec(handler) -> ToolSpec:
    return ToolSpec(
        name="probe",
        title="Probe",
        description="A tool for this test.",
        input_model=_Input,
        output_model=_Output,
        handler=handler,
        render=lambda out: str(out.n),
    )


def test_validation_errors_name_fields_without_echoing_input():
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as caught:
        _Input.model_validate({"n": "x" * 100_000, "extra": 1})
    error = describe_validation_error(caught.value)
    assert error.code == "invalid_argument" and error.fields == ["extra", "n"]
    assert "extra: unknown argument" in error.message and len(error.message) < 500


@pytest.fixture()
def context(served_copy):
    from serving.mcp.server import ServingContext

    return ServingContext(StateLayout(served_copy), ServedConfig())


def test_call_tool_turns_every_failure_into_a_structured_error(context):
    from serving.mcp.server import call_tool

    def crash(ctx, args):
        raise RuntimeError("secret internal detail")

    def missing(ctx, args):
        raise NotFound("no such thing", fields=["n"])

    ok = call_tool(_spec(lambda ctx, args: _Output(n=args.n * 2)), context, {"n": 2})
    assert not ok.is_error and ok.structured_content == {"n": 4}
    crashed = call_tool(_spec(crash), context, {"n": 1})
    assert crashed.is_error and error_of(crashed)["code"] == "internal"
    assert "secret" not in crashed.content[0].text and "Traceback" not in crashed.content[0].text
    gone = error_of(call_tool(_spec(missing), context, {"n": 1}))
    assert gone == {
        "code": "not_found",
        "message": "no such thing",
        "fields": ["n"],
        "rebuild": [],
        "next_call": "call probe again with n fixed; tools/list gives its input schema",
    }
    bad = error_of(call_tool(_spec(missing), context, {"n": "three"}))
    assert bad["code"] == "invalid_argument" and bad["fields"] == ["n"]


def test_an_error_answer_is_valid_for_a_strict_client(context):
    """No structured content (a strict client checks any against the success's output schema); a
    readable block naming the fault and the next call, then the error as JSON."""
    from serving.mcp.server import call_tool

    def missing(ctx, args):
        raise NotFound("no such thing", fields=["n"], next_call="call probe with n=1")

    result = call_tool(_spec(missing), context, {"n": 1})
    assert result.is_error and result.structured_content is None
    assert "structuredContent" not in result.model_dump(by_alias=True, exclude_none=True)
    readable, body = result.content
    assert "at fault: n" in readable.text and "next: call probe with n=1" in readable.text
    payload = json.loads(body.text)
    assert payload["error"]["next_call"] == "call probe with n=1" and payload["trace"]["request_id"]


def _refusal(tool: str, arguments: dict):
    from pydantic import ValidationError

    from serving.mcp.toolset import all_tools

    spec = next(s for s in all_tools() if s.name == tool)
    with pytest.raises(ValidationError) as caught:
        spec.input_model.model_validate(arguments)
    return describe_validation_error(caught.value, tool, spec.input_model, arguments)


def test_an_argument_error_says_the_next_valid_call_from_the_schema():
    swapped = _refusal("get_passage", {"chunk_id": "doc-0123456789abcdef"})
    assert swapped.fields == ["chunk_id"] and "doc-0123456789abcdef is a document id" in swapped.next_call
    assert "call search_documents with document_id=doc-0123456789abcdef" in swapped.next_call
    reverse = _refusal("verify_citation", {"document_id": "chunk-0123456789abcdef", "quote": "x" * 20})
    assert "call get_passage with chunk_id=chunk-0123456789abcdef" in reverse.next_call
    assert "takes no arguments" in _refusal("corpus_status", {"verbose": True}).next_call
    assert "did you mean `limit`" in _refusal("search_documents", {"query": "q", "limt": 3}).next_call
    bounds = _refusal("search_documents", {"query": "q", "limit": 99, "mode": "magic"})
    assert bounds.fields == ["limit", "mode"]
    assert bounds.next_call == (
        "call search_documents with limit an integer from 1 to 20; mode one of dense, bm25, hybrid"
    )
    missing = _refusal("session_put", {"name": "s"})
    assert missing.fields == ["kind", "provenance", "value"]
    assert "kind (required) one of scope" in missing.next_call
    rule = _refusal("search_documents", {"query": "q", "year_min": 2020, "year_max": 2010})
    assert rule.fields == ["year_max", "year_min"]
    # a union value without its `kind`: the errors of the member the caller meant (an evidence
    # list), not the scope's refusal of `items`
    member = _refusal(
        "session_put",
        {"name": "s", "provenance": "served", "value": {"items": [{"document_id": "doc-x", "quote": "q" * 20}]}},
    )
    assert member.fields == ["kind", "value.items.0.document_id"] and "list_documents" in member.next_call


def _statuses(layout: StateLayout) -> dict[str, str]:
    return {a.name: a.status for a in check_state(layout, ServedConfig()).artefacts}


def test_coherence_names_each_broken_artefact(served_copy, monkeypatch, capsys):
    layout = StateLayout(served_copy)
    assert set(_statuses(layout).values()) == {"coherent"}
    monkeypatch.setenv("QUANT_RAG_HOME", str(served_copy))
    assert doctor([]) == EXIT_OK

    shutil.rmtree(layout.bm25)
    layout.graph.unlink()
    meta_file = next(layout.vectors.rglob("meta.json"))
    meta = read_json(meta_file)
    atomic_write_json(meta_file, {**meta, "signature": "feedfacecafe"})
    statuses = _statuses(layout)
    assert statuses == {
        "recorded signature": "coherent",
        "vector index": "stale",
        "BM25 index": "missing",
        "entity graph": "missing",
        "embedding model": "coherent",
    }
    report = check_state(layout, ServedConfig())
    assert not report.coherent and report.rebuild_commands == [INGEST_COMMAND]
    assert "vector index is stale" in report.problem() and INGEST_COMMAND in report.problem()

    capsys.readouterr()
    assert doctor([]) == EXIT_FAILED
    printed = capsys.readouterr().out
    for name in ("vector index: stale", "BM25 index: missing", "entity graph: missing"):
        assert name in printed
    assert f"`{INGEST_COMMAND}`" in printed


def test_doctor_reports_the_optional_token_index_apart(served_copy, monkeypatch, capsys):
    """Present: an ok line with its size; gone: a `--` line naming the fix, and the state stays
    coherent (hybrid search then keeps the fused order)."""
    monkeypatch.setenv("QUANT_RAG_HOME", str(served_copy))
    capsys.readouterr()
    assert doctor([]) == EXIT_OK
    line = next(row for row in capsys.readouterr().out.splitlines() if "token index" in row)
    assert line.startswith("ok token index (optional): coherent") and "integer product" in line
    shutil.rmtree(StateLayout(served_copy).token_indexes)
    assert doctor([]) == EXIT_OK
    line = next(row for row in capsys.readouterr().out.splitlines() if "token index" in row)
    assert line.startswith("-- token index (optional): missing") and f"`{INGEST_COMMAND}`" in line
    monkeypatch.setenv("QUANT_RAG_LATE_INTERACTION", "false")
    assert doctor(["--json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["token_index"]["status"] == "off"


def test_a_changed_passages_file_makes_every_index_stale(served_copy):
    layout = StateLayout(served_copy)
    document_id = layout.registered_document_ids()[0]
    path = layout.passages(document_id)
    path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    statuses = _statuses(layout)
    assert statuses.pop("embedding model") == "coherent"  # the same model, other content
    assert all(status == "stale" for status in statuses.values()), statuses


def test_error_messages_carry_no_absolute_state_path(context, tmp_path, monkeypatch, capsys):
    from serving.answer.errors import Unavailable
    from serving.mcp.server import ServingContext, call_tool

    root = context.layout.root

    def busy(ctx, args):  # what a store error says: the artefact, under the state directory
        raise Unavailable(f"vector store at {root}/vectors/gen-3 is open in another process")

    error = error_of(call_tool(_spec(busy), context, {"n": 1}))
    assert error["message"] == "vector store at $QUANT_RAG_HOME/vectors/gen-3 is open in another process"
    empty = ServingContext(StateLayout(tmp_path / "empty").ensure(), ServedConfig())
    monkeypatch.setenv("QUANT_RAG_HOME", str(tmp_path / "empty"))
    from serving.cli import search
    from serving.mcp.toolset import all_tools

    spec = next(s for s in all_tools() if s.name == "search_documents")
    result = call_tool(spec, empty, {"query": "value at risk"})
    assert result.is_error and "QUANT_RAG_HOME" in result.content[0].text
    capsys.readouterr()
    assert search(["value at risk"]) == EXIT_FAILED
    for text in (error_text(result), capsys.readouterr().err):
        assert str(tmp_path) not in text
