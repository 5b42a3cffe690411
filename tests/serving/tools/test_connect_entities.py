"""connect_entities: passages where two entities meet, and their documents."""

from __future__ import annotations

from mcp_stdio import run_calls


def test_connect_entities_over_stdio(served_home):
    async def scenario(c):
        return (
            await c("connect_entities", {"entity_a": "standard deviation", "entity_b": "variance"})
        ).structured_content

    connect = run_calls(served_home, scenario, warm_up=False)
    assert connect["results"] and connect["documents"]


def test_entities_are_named_as_in_expand_entity(invoke):
    def meet(a, b):
        return invoke("connect_entities", {"entity_a": a, "entity_b": b}).structured_content

    canonical = meet("CVaR", "VaR")
    assert canonical["results"] and meet("cvar", "VAR")["results"] == canonical["results"]
    alias = meet("conditional value at risk", "VaR")  # an alias: the same entity, matched exactly
    assert (alias["a"][0]["key"], alias["a"][0]["weight"]) == (canonical["a"][0]["key"], 1.0)
