"""session_get: an entry comes back with the provenance it was stored with; unknown names are not found."""

from __future__ import annotations

from mcp_stdio import assert_error, run_calls


def test_session_get_over_stdio(served_home):
    async def scenario(c):  # evidence must name a served document (as verify_citations requires)
        doc = (await c("list_documents", {})).structured_content["documents"][0]["document_id"]
        await c(
            "session_put",
            {
                "name": "ev",
                "kind": "evidence",
                "provenance": "served",
                "value": {"items": [{"document_id": doc, "quote": "a quote long enough"}]},
            },
        )
        got = (await c("session_get", {"name": "ev"})).structured_content
        assert_error(await c("session_get", {"name": "nothing-here"}), "not_found")
        return got

    got = run_calls(served_home, scenario, warm_up=False)
    assert got["entry"]["provenance"] == "served"
