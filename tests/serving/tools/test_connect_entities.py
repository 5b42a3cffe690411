"""connect_entities: passages where two entities meet, and their documents."""

from __future__ import annotations

from mcp_stdio import run_calls


def test_connect_entities_over_stdio(served_home):
    async def scenario(c):
        return (await c("connect_entities", {"entity_a": "standard deviation",
                                             "entity_b": "variance"})).structured_content

    connect = run_calls(served_home, scenario, warm_up=False)
    assert connect["results"] and connect["documents"]
