"""session_put: a validated entry stored with its provenance; bad names and provenance refused."""

from __future__ import annotations

from mcp_stdio import assert_error, error_of, run_calls


def test_session_put_over_stdio(served_home):
    async def scenario(c):
        put = (
            await c(
                "session_put",
                {"name": "recent", "kind": "scope", "provenance": "user_pasted", "value": {"year_min": 2016}},
            )
        ).structured_content
        assert_error(
            await c(
                "session_put",
                {"name": "bad name!", "kind": "scope", "provenance": "served", "value": {"year_min": 2000}},
            ),
            "invalid_argument",
            "name",
        )
        assert_error(
            await c(
                "session_put", {"name": "s", "kind": "scope", "provenance": "recalled", "value": {"year_min": 2000}}
            ),
            "invalid_argument",
            "provenance",
        )
        return put

    put = run_calls(served_home, scenario, warm_up=False)
    assert put["entry"]["name"] == "recent" and put["entry"]["provenance"] == "user_pasted"


def test_the_limits_the_description_quotes_are_enforced(served_home, monkeypatch):
    from corpus.config import ServedConfig
    from corpus.state.layout import StateLayout
    from serving.mcp.server import ServingContext, call_tool
    from serving.sessions.store import MAX_ITEMS_ENV, MAX_VALUE_BYTES
    from serving.tools.sessions import SPECS

    monkeypatch.setenv(MAX_ITEMS_ENV, "2")
    ctx = ServingContext(StateLayout(served_home), ServedConfig())
    put = SPECS[0]
    assert f"at most 2 ({MAX_ITEMS_ENV})" in put.describe(ctx) and f"{MAX_VALUE_BYTES:,} bytes" in put.describe(ctx)
    evicted = [
        call_tool(
            put, ctx, {"name": name, "kind": "scope", "provenance": "served", "value": {"year_min": 2000}}
        ).structured_content["evicted"]
        for name in ("a", "b", "c")
    ]
    assert evicted == [[], [], ["a"]]
    served = next(iter(ctx.engine.parts.reader.documents))  # a served id: the size, not the id, is refused
    items = [{"document_id": served, "quote": "é" * 5000}] * 400  # 4 MB of JSON
    big = call_tool(put, ctx, {"name": "big", "kind": "evidence", "provenance": "user_file", "value": {"items": items}})
    assert big.is_error and error_of(big)["code"] == "invalid_argument"
    assert f"{MAX_VALUE_BYTES}-byte limit" in error_of(big)["message"]
