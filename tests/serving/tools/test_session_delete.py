"""session_delete: an entry is removed."""

from __future__ import annotations

from mcp_stdio import run_calls


def test_session_delete_over_stdio(served_home):
    async def scenario(c):
        await c("session_put", {"name": "ev", "kind": "evidence", "provenance": "served", "value": {
            "items": [{"document_id": "doc-0000000000000000", "quote": "a quote long enough"}]}})
        deleted = (await c("session_delete", {"name": "ev"})).structured_content
        listed = (await c("session_list", {})).structured_content
        return deleted, listed

    deleted, listed = run_calls(served_home, scenario, warm_up=False)
    assert deleted["deleted"] is True and listed["entries"] == []
