"""session_list: names of the stored entries."""

from __future__ import annotations

from mcp_stdio import run_calls


def test_session_list_over_stdio(served_home):
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
        await c(
            "session_put", {"name": "recent", "kind": "scope", "provenance": "user_pasted", "value": {"year_min": 2016}}
        )
        return (await c("session_list", {})).structured_content

    listed = run_calls(served_home, scenario, warm_up=False)
    assert {e["name"] for e in listed["entries"]} == {"ev", "recent"}
