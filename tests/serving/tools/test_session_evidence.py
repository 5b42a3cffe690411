"""Evidence is held to verify_citations' rules when stored: a quote too short to prove anything or
an id the corpus does not serve is refused by session_put, naming the item and showing a valid
call; an item may carry the claim it supports, which verification gives back with the session's
provenance (one of them: derived_from_question)."""

from __future__ import annotations

import pytest
from mcp_stdio import error_of

from serving.citation.verify import MIN_QUOTE_CHARS
from serving.sessions.store import SessionError, SessionStore

UNKNOWN_DOC = "doc-0000000000000000"
UNKNOWN_CHUNK = "chunk-0000000000000000"


@pytest.fixture(scope="module")
def good(context):
    chunk = next(iter(context.engine.parts.reader.passages.values()))
    return {"document_id": chunk.document_id, "quote": chunk.text[:60].strip(), "chunk_id": chunk.chunk_id}


def _put(invoke, items, name="ev", provenance="served"):
    return invoke(
        "session_put", {"name": name, "kind": "evidence", "provenance": provenance, "value": {"items": items}}
    )


@pytest.mark.parametrize("quote", ["abcd", "   abcd      ", "x" * (MIN_QUOTE_CHARS - 1)])
def test_a_quote_verification_would_refuse_is_refused_when_stored(invoke, good, quote):
    answer = _put(invoke, [good, good, {**good, "quote": quote}])
    error = error_of(answer)
    assert answer.is_error and error["code"] == "invalid_argument"
    assert error["fields"] == ["value.items.2.quote"]
    assert "evidence item 2" in error["message"] and "a valid call: session_put(" in error["message"]
    assert "value.Scope" not in error["message"]  # only the fields of the kind asked for
    assert invoke("session_get", {"name": "ev"}).is_error  # nothing stored


def test_unknown_ids_are_refused_when_stored_naming_each_item(invoke, good):
    answer = _put(invoke, [good, {**good, "document_id": UNKNOWN_DOC}, {**good, "chunk_id": UNKNOWN_CHUNK}])
    error = error_of(answer)
    assert answer.is_error and error["code"] == "not_found"
    assert error["fields"] == ["value.items.1.document_id", "value.items.2.chunk_id"]
    assert "evidence item 1" in error["message"] and "evidence item 2" in error["message"]
    assert "a valid call" in error["message"]
    listed = invoke("session_list", {}).structured_content["entries"]
    assert "ev" not in {e["name"] for e in listed}  # nothing stored


def test_the_claim_and_the_provenance_come_back_with_verification(invoke, good):
    claim = "Value at risk is estimated from the distribution of past returns."
    assert not _put(invoke, [{**good, "supports": claim}], name="ev-claim", provenance="derived_from_question").is_error
    checked = invoke("verify_citations", {"evidence": {"session": "ev-claim"}})
    out = checked.structured_content
    assert out["results"][0]["status"] == "verified" and out["results"][0]["supports"] == claim
    assert out["evidence_provenance"] == "derived_from_question" and out["evidence_session"] == "ev-claim"
    text = checked.content[0].text
    assert f"supports: {claim}" in text and "provenance derived_from_question" in text and "ev-claim" in text
    direct = invoke("verify_citation", {**good, "supports": claim}).structured_content
    assert direct["supports"] == claim


def test_the_store_itself_names_the_item_and_a_valid_call():
    store = SessionStore(4)
    with pytest.raises(SessionError, match=r"item 1 \(items\.1\.quote\).*a valid call: session_put\("):
        store.put(
            "ev",
            "evidence",
            [
                {"document_id": UNKNOWN_DOC, "quote": "a quote long enough"},
                {"document_id": UNKNOWN_DOC, "quote": "abcd"},
            ],
            "served",
        )
    entry = store.put("q", "scope", {"year_max": 2011}, "derived_from_question")
    assert entry.provenance == "derived_from_question"
