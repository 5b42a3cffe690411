"""session_delete: an entry is removed."""

from __future__ import annotations

from mcp_stdio import run_calls


def test_session_delete_over_stdio(served_home):
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
        deleted = (await c("session_delete", {"name": "ev"})).structured_content
        listed = (await c("session_list", {})).structured_content
        return deleted, listed

    deleted, listed = run_calls(served_home, scenario, warm_up=False)
    assert deleted["deleted"] is True and listed["entries"] == []
