"""expand_entity: one entity with its rarity-weighted co-mentions."""

from __future__ import annotations

from mcp_stdio import run_calls


def test_expand_entity_over_stdio(served_home):
    async def scenario(c):
        return (await c("expand_entity", {"entity_name": "variance"})).structured_content

    expand = run_calls(served_home, scenario, warm_up=False)
    assert expand["entity"]["name"] == "variance" and expand["co_mentions"]


def test_an_alias_an_acronym_and_any_case_name_the_same_entity(invoke):
    """The names the description promises: canonical name, a written alias, case folded."""

    def entity(name):
        return invoke("expand_entity", {"entity_name": name}).structured_content["entity"]

    canonical = entity("CVaR")
    assert canonical and canonical["name"] == "CVaR" and canonical["weight"] == 1.0
    for name in ("cvar", "Conditional Value at Risk", "CONDITIONAL VALUE AT RISK"):
        assert entity(name)["key"] == canonical["key"], name
    assert entity("no such entity anywhere") is None
