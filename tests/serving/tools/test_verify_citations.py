"""verify_citations: a batch from an evidence session, with the session's provenance reported."""

from __future__ import annotations

from mcp_stdio import assert_error, run_calls


def test_verify_citations_over_stdio(served_home):
    async def scenario(c):
        hit = (await c("search_documents", {"query": "How is value at risk estimated from past returns?",
                                            "limit": 4})).structured_content["results"][0]
        await c("session_put", {"name": "ev", "kind": "evidence", "provenance": "served",
                                "value": {"items": [{"document_id": hit["document_id"], "quote": hit["text"][:80]}]}})
        batch = (await c("verify_citations", {"evidence": {"session": "ev"}})).structured_content
        assert_error(await c("verify_citations", {}), "invalid_argument")
        return batch

    batch = run_calls(served_home, scenario)
    assert batch["summary"]["verified"] == 1 and batch["evidence_provenance"] == "served"
