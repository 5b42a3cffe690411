"""verify_citations: a batch from an evidence session, with the session's provenance reported."""

from __future__ import annotations

from mcp_stdio import assert_error, error_of, run_calls


def test_verify_citations_over_stdio(served_home):
    async def scenario(c):
        hit = (
            await c("search_documents", {"query": "How is value at risk estimated from past returns?", "limit": 4})
        ).structured_content["results"][0]
        await c(
            "session_put",
            {
                "name": "ev",
                "kind": "evidence",
                "provenance": "served",
                "value": {"items": [{"document_id": hit["document_id"], "quote": hit["text"][:80]}]},
            },
        )
        batch = (await c("verify_citations", {"evidence": {"session": "ev"}})).structured_content
        assert_error(await c("verify_citations", {}), "invalid_argument")
        return batch

    batch = run_calls(served_home, scenario)
    assert batch["summary"]["verified"] == 1 and batch["evidence_provenance"] == "served"


def test_an_unknown_id_is_an_error_in_both_verify_tools(context, invoke):
    """One meaning of `not_found`: a status is a served document without the quote; an unknown id
    is a not_found error naming every such item, and nothing is checked."""
    chunk = next(iter(context.engine.parts.reader.passages.values()))
    good = {"document_id": chunk.document_id, "quote": chunk.text[:60]}
    words = chunk.text.split()[:10]
    altered = " ".join(words[:5] + ["zebra"] + words[6:])  # one word changed: a near miss
    absent = {"document_id": chunk.document_id, "quote": altered}
    unknown_doc = {"document_id": "doc-0000000000000000", "quote": "a quote long enough"}
    unknown_chunk = {**good, "chunk_id": "chunk-0000000000000000"}
    one = invoke("verify_citation", unknown_doc)
    assert one.is_error and error_of(one)["code"] == "not_found"
    assert error_of(one)["fields"] == ["document_id"]
    batch = invoke("verify_citations", {"citations": [good, unknown_doc, absent, unknown_chunk]})
    assert batch.is_error and error_of(batch)["code"] == "not_found"
    assert error_of(batch)["fields"] == ["citations.1.document_id", "citations.3.chunk_id"]
    checked = invoke("verify_citations", {"citations": [good, absent]}).structured_content
    assert [r["status"] for r in checked["results"]] == ["verified", "not_found"]
    assert checked["results"][1]["closest"]["word_edits"] >= 1
    assert invoke("verify_citation", absent).structured_content["status"] == "not_found"

    refused = invoke(
        "session_put",
        {"name": "ev-unknown", "kind": "evidence", "provenance": "served", "value": {"items": [good, unknown_doc]}},
    )
    assert refused.is_error and error_of(refused)["code"] == "not_found"
    assert error_of(refused)["fields"] == ["value.items.1.document_id"]
    short = invoke(
        "session_put",
        {
            "name": "ev-short",
            "kind": "evidence",
            "provenance": "served",
            "value": {"items": [good, {**good, "quote": "short"}]},
        },
    )
    assert short.is_error and error_of(short)["code"] == "invalid_argument"
    assert error_of(short)["fields"] == ["value.items.1.quote"]
    assert "evidence item 1" in short.content[0].text and "a valid call: session_put(" in short.content[0].text
