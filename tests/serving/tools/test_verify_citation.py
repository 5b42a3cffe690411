"""verify_citation: a served quote is verified with offsets; an invented one is refused with the
closest passage; bad ids and short quotes are structured errors."""

from __future__ import annotations

from mcp_stdio import assert_error, run_calls


def test_verify_citation_over_stdio(served_home):
    async def scenario(c):
        hit = (
            await c("search_documents", {"query": "How is value at risk estimated from past returns?", "limit": 4})
        ).structured_content["results"][0]
        quote = hit["text"][:80]
        good = (await c("verify_citation", {"document_id": hit["document_id"], "quote": quote})).structured_content
        bad = (
            await c(
                "verify_citation",
                {
                    "document_id": hit["document_id"],
                    "quote": "Value at Risk is a useless concept in portfolio risk management",
                },
            )
        ).structured_content
        assert_error(
            await c("verify_citation", {"document_id": "doc-XYZ", "quote": "a quote long enough"}),
            "invalid_argument",
            "document_id",
        )
        assert_error(
            await c("verify_citation", {"document_id": "doc-0000000000000000", "quote": "a quote long enough"}),
            "not_found",
        )
        assert_error(
            await c("verify_citation", {"document_id": "doc-0000000000000000", "quote": "short"}),
            "invalid_argument",
            "quote",
        )
        return good, bad

    good, bad = run_calls(served_home, scenario)
    assert good["status"] == "verified" and good["offsets"]
    assert bad["status"] == "not_found" and bad["closest"]
