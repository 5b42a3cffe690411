"""A cost bound on every tool, over the real stdio server on a real served state:
long quotes, full batches and a 500-quote evidence session answer within 2 s; session_list over
a store at its byte limit within 1 s and without values; unknown ids and loose types are refused."""

from __future__ import annotations

import random

import pytest

from serving.citation.verify import BUDGET_REASON, MAX_BATCH, MAX_QUOTE_CHARS
from serving.sessions.store import MAX_TOTAL_BYTES, MAX_VALUE_BYTES
from tests.mcp_stdio import error_of
from tests.serving.stdio_harness import running_server

LIMIT_S = 2.0


def _hostile_quote(words: list[str], rng: random.Random) -> str:
    """5,000 characters of the document's own words in a random order: every seed word is
    present, nothing aligns (the input that made the closest search run for minutes)."""
    out: list[str] = []
    while sum(map(len, out)) + len(out) < MAX_QUOTE_CHARS:
        out.append(rng.choice(words))
    return " ".join(out)[:MAX_QUOTE_CHARS].strip()


@pytest.fixture(scope="module")
def server(served_home):
    with running_server(served_home) as srv:
        srv.call("search_documents", {"query": "value at risk"})  # load the model once
        yield srv


@pytest.fixture(scope="module")
def document(server):
    result, _ = server.call("list_documents", {})
    doc = result.structured_content["documents"][0]["document_id"]
    passage, _ = server.call("search_documents", {"query": "variance", "document_id": doc, "mode": "bm25"})
    words = " ".join(p["text"] for p in passage.structured_content["results"]).split()
    return doc, words


def test_a_5000_character_quote_a_full_batch_and_a_500_quote_session_answer_in_time(server, document):
    doc, words = document
    rng = random.Random(12)
    one, took = server.call("verify_citation", {"document_id": doc, "quote": _hostile_quote(words, rng)})
    assert not one.is_error and one.structured_content["status"] == "not_found" and took <= LIMIT_S, took
    timings = [took]
    batch = [{"document_id": doc, "quote": _hostile_quote(words, rng)} for _ in range(MAX_BATCH)]
    many, took = server.call("verify_citations", {"citations": batch})
    assert not many.is_error and many.structured_content["summary"]["checked"] == MAX_BATCH
    assert took <= LIMIT_S, took
    timings.append(took)
    reasons = [r["reason"] for r in many.structured_content["results"]]
    assert all(r.startswith("quote not found") or BUDGET_REASON in r for r in reasons)
    items = [{"document_id": doc, "quote": _hostile_quote(words, rng)} for _ in range(500)]
    put, _ = server.call(
        "session_put", {"name": "ev500", "kind": "evidence", "value": {"items": items}, "provenance": "user_pasted"}
    )
    assert not put.is_error, put.content[0].text
    session, took = server.call("verify_citations", {"evidence": {"session": "ev500"}})
    assert not session.is_error and session.structured_content["summary"]["checked"] == 500
    assert took <= LIMIT_S, took
    print(
        f"\n5,000-char quote / 50-quote batch / 500-quote session: {timings[0]:.2f} / {timings[1]:.2f} / {took:.2f} s"
    )
    assert any(BUDGET_REASON in r["reason"] for r in session.structured_content["results"])


def test_a_true_long_quote_still_verifies_and_a_near_miss_gets_its_closest(server, document):
    doc, words = document
    passage, _ = server.call("search_documents", {"query": "variance", "document_id": doc, "mode": "bm25"})
    text = passage.structured_content["results"][0]["text"]
    quote = " ".join(text.split()[:60])
    assert server.call("verify_citation", {"document_id": doc, "quote": quote})[0].structured_content["status"] in (
        "verified",
        "verified_normalised",
    )
    changed = quote.split()
    changed[30] = "zqxjv"
    miss, took = server.call("verify_citation", {"document_id": doc, "quote": " ".join(changed)})
    assert miss.structured_content["closest"]["word_edits"] == 1 and took <= LIMIT_S


def test_session_list_at_the_byte_limit_is_fast_and_shows_no_values(server, document):
    doc, _ = document
    quote = "x" * 5000
    items = [{"document_id": doc, "quote": quote}] * 500  # ~2.5 MB: a full evidence entry
    evicted = []
    for i in range(MAX_TOTAL_BYTES // MAX_VALUE_BYTES + 2):
        put, _ = server.call(
            "session_put",
            {"name": f"big{i}", "kind": "evidence", "value": {"items": items}, "provenance": "user_pasted"},
        )
        assert not put.is_error, put.content[0].text
        assert "value" not in put.structured_content["entry"]
        evicted += put.structured_content["evicted"]
    listing, took = server.call("session_list", {})
    out = listing.structured_content
    assert took <= 1.0, took
    assert evicted and MAX_TOTAL_BYTES - MAX_VALUE_BYTES < out["total_bytes"] <= MAX_TOTAL_BYTES
    assert all(set(e) == {"name", "kind", "provenance", "created_at", "size", "bytes"} for e in out["entries"])
    too_big = [{"document_id": doc, "quote": "é" * 5000}] * 500  # 5 MB of UTF-8
    refused, _ = server.call(
        "session_put", {"name": "huge", "kind": "evidence", "value": {"items": too_big}, "provenance": "user_pasted"}
    )
    assert error_of(refused)["code"] == "invalid_argument"
    assert str(MAX_VALUE_BYTES) in error_of(refused)["message"]


def test_unknown_ids_loose_types_and_newline_ids_are_refused(server, document):
    doc, _ = document
    unknown = "doc-" + "f" * 16
    for tool in ("search_documents", "timeline"):
        result, _ = server.call(tool, {"query": "variance", "document_id": unknown})
        error = error_of(result)
        assert result.is_error and error["code"] == "not_found" and unknown in error["message"]
        assert "list_documents" in error["message"] and error["fields"] == ["document_id"]
    server.call(
        "session_put",
        {"name": "ghost", "kind": "scope", "value": {"document_ids": [doc, unknown]}, "provenance": "user_pasted"},
    )
    scoped, _ = server.call("search_documents", {"query": "variance", "scope": {"session": "ghost"}})
    assert error_of(scoped)["code"] == "not_found" and unknown in scoped.content[0].text
    for arguments in ({"limit": True}, {"limit": "5"}, {"limit": 5.0}, {"auto_period": 1}):
        result, _ = server.call("search_documents", {"query": "variance", **arguments})
        assert result.is_error and error_of(result)["code"] == "invalid_argument", arguments
    for value in ({"document_ids": [doc + "\n"]}, {"year_min": "2015"}):
        result, _ = server.call(
            "session_put", {"name": "bad", "kind": "scope", "value": value, "provenance": "user_pasted"}
        )
        assert error_of(result)["code"] == "invalid_argument", value
    result, _ = server.call("get_passage", {"chunk_id": "chunk-0123456789abcdef\n"})
    assert error_of(result)["code"] == "invalid_argument"
