"""expand_entity: one entity with its rarity-weighted co-mentions."""

from __future__ import annotations

from mcp_stdio import run_calls


def test_expand_entity_over_stdio(served_home):
    async def scenario(c):
        return (await c("expand_entity", {"entity_name": "variance"})).structured_content

    expand = run_calls(served_home, scenario, warm_up=False)
    assert expand["entity"]["name"] == "variance" and expand["co_mentions"]
