"""session_put: a validated entry stored with its provenance; bad names and provenance refused."""

from __future__ import annotations

from mcp_stdio import assert_error, run_calls


def test_session_put_over_stdio(served_home):
    async def scenario(c):
        put = (await c("session_put", {"name": "recent", "kind": "scope", "provenance": "user_pasted",
                                       "value": {"year_min": 2016}})).structured_content
        assert_error(await c("session_put", {"name": "bad name!", "kind": "scope", "provenance": "served",
                                             "value": {"year_min": 2000}}), "invalid_argument", "name")
        assert_error(await c("session_put", {"name": "s", "kind": "scope", "provenance": "recalled",
                                             "value": {"year_min": 2000}}), "invalid_argument", "provenance")
        return put

    put = run_calls(served_home, scenario, warm_up=False)
    assert put["entry"]["name"] == "recent" and put["entry"]["provenance"] == "user_pasted"
